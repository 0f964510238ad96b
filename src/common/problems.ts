import type { components } from '../../generated/openapi.js';

/** The base of every problem `type` this server sends (docs/errors.md). */
export const PROBLEM_TYPE_BASE = 'https://analytics-desk.example/problems/';

/** Every problem this server can report, in one place (docs/errors.md): its status and title. */
export const PROBLEMS = {
  'validation-failed': { status: 400, title: 'Request validation failed' },
  unauthorized: { status: 401, title: 'Sign-in required' },
  forbidden: { status: 403, title: 'Forbidden' },
  'not-found': { status: 404, title: 'Not found' },
  'tenant-not-found': { status: 404, title: 'Tenant not found' },
  'route-not-found': { status: 404, title: 'No such route' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'ambiguous-tenant': { status: 409, title: 'Ambiguous tenant slug' },
  conflict: { status: 409, title: 'Conflict' },
  'precondition-failed': { status: 412, title: 'Precondition failed' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'range-not-satisfiable': { status: 416, title: 'Range not satisfiable' },
  'misdirected-request': { status: 421, title: 'Misdirected request' },
  'too-many-requests': { status: 429, title: 'Too many requests' },
  'request-header-fields-too-large': { status: 431, title: 'Request header fields too large' },
  'internal-error': { status: 500, title: 'Internal server error' },
  'not-implemented': { status: 501, title: 'Not implemented' },
  'bad-gateway': { status: 502, title: 'Upstream service failed' },
  'service-unavailable': { status: 503, title: 'Service unavailable' },
  'app-database-unavailable': { status: 503, title: 'App database unavailable' },
  'tenant-unavailable': { status: 503, title: 'Tenant not available yet' },
  'tenant-too-large': { status: 503, title: 'Tenant too large for the cache' },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

/** One failed check of a request (`errors[]` of a validation problem), as the contract defines it. */
export type ValidationIssue = components['schemas']['ValidationIssue'];

/** RFC 9457 problem details as sent to clients: the contract's `Problem` schema. */
export type ProblemBody = components['schemas']['Problem'];

/** Why a bearer token did not do (RFC 6750 `error`): none sent, one that failed a check, one without the role. */
export type TokenChallenge = 'token-required' | 'invalid-token' | 'insufficient-scope';

/** What a problem tells its client besides the detail; the edge sends each as its header. */
export interface ProblemFacts {
  /** The failed checks of a request (`errors[]`). */
  readonly issues?: ValidationIssue[];
  /** When to try again (`Retry-After`). */
  readonly retryAfterSeconds?: number;
  /** The entity tag of the target's current state (`ETag` of a 412). */
  readonly currentTag?: string;
  /** The methods the path allows (`Allow` of a 405). */
  readonly allowedMethods?: readonly string[];
  /** The bearer-token challenge (`WWW-Authenticate`). */
  readonly challenge?: TokenChallenge;
  /** The size in bytes of the representation a byte range missed (`Content-Range` of a 416). */
  readonly representationBytes?: number;
  /** What the audit line records of the refused request (what went out before it failed). */
  readonly auditDetails?: Readonly<Record<string, string | number | boolean | null>>;
  /**
   * For the log only, never sent: what the operator needs to find the cause (an upstream's address, an object
   * key, an errno), logged with the request id the problem carries.
   */
  readonly cause?: string;
  /**
   * For the log only: the problem was raised because the request's client closed its connection (it stopped
   * waiting, its answer reaches no one), logged at info rather than as a failure.
   */
  readonly clientLeft?: true;
}

/**
 * A failure any layer may report: a code of the catalogue, a detail for the client, and the facts that go with it.
 * It names no HTTP header; the edge (src/http/problem-answer.ts) turns it into the answer.
 */
export class Problem extends Error {
  readonly status: number;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly facts: ProblemFacts = {},
  ) {
    super(detail);
    this.name = 'Problem';
    this.status = PROBLEMS[code].status;
  }

  /** The body sent to the client. */
  toBody(instance?: string, requestId?: string): ProblemBody {
    const body: ProblemBody = { type: PROBLEM_TYPE_BASE + this.code, title: PROBLEMS[this.code].title, status: this.status, detail: this.detail };
    if (instance !== undefined) body.instance = instance;
    if (requestId !== undefined) body.requestId = requestId;
    if (this.facts.issues !== undefined) body.errors = this.facts.issues;
    return body;
  }
}

/** Most issues a validation problem's `detail` names (`errors[]` lists every one): a body of many bad values stays one line. */
const DETAIL_ISSUES = 10;

/** 400 with `errors[]`, for a request that breaks the contract or a rule the schema cannot express. */
export const invalidRequest = (issues: ValidationIssue[], detail?: string): Problem => {
  const named = issues.slice(0, DETAIL_ISSUES).map((i) => `${i.in} ${i.name}: ${i.message}`).join('; ');
  const more = issues.length > DETAIL_ISSUES ? `; and ${issues.length - DETAIL_ISSUES} more in errors[]` : '';
  return new Problem('validation-failed', detail ?? named + more, { issues });
};

/** 403 for a caller whose token does not allow the request. */
export const forbidden = (detail: string): Problem => new Problem('forbidden', detail, { challenge: 'insufficient-scope' });

/** 503 with when to try again, for a tenant whose file is not downloaded yet. */
export const tenantUnavailable = (tenant: string, retryAfterSeconds: number): Problem =>
  new Problem('tenant-unavailable', `tenant "${tenant}" is still being downloaded; retry later`, { retryAfterSeconds });

/**
 * 412 for a write whose `If-Match` does not name the target's current state: nothing was written. The current
 * tag is named in the detail and sent (the caller may read the target); none when it no longer exists.
 */
export const preconditionFailed = (what: string, current: string | null): Problem =>
  current === null
    ? new Problem('precondition-failed', `If-Match does not hold: ${what} does not exist (any more); nothing was written`)
    : new Problem('precondition-failed', `If-Match does not name the current state of ${what}, which is ${current}; nothing was written`, { currentTag: current });
