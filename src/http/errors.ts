import type { components } from '../../generated/openapi.js';

/** Every problem this server can send, in one place (docs/errors.md). */
export const PROBLEM_TYPE_BASE = 'https://analytics-desk.example/problems/';

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

/** A cross-cutting failure that the error middleware turns into a problem response. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly title: string;
  readonly type: string;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extras: { errors?: ValidationIssue[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
    this.status = PROBLEMS[code].status;
    this.title = PROBLEMS[code].title;
    this.type = PROBLEM_TYPE_BASE + code;
  }

  /** The body sent to the client. */
  toBody(instance?: string, requestId?: string): ProblemBody {
    const body: ProblemBody = { type: this.type, title: this.title, status: this.status, detail: this.detail };
    if (instance !== undefined) body.instance = instance;
    if (requestId !== undefined) body.requestId = requestId;
    if (this.extras.errors !== undefined) body.errors = this.extras.errors;
    return body;
  }
}

/** 400 with `errors[]`, for a request that breaks the contract or a rule the schema cannot express. */
export const invalidRequest = (issues: ValidationIssue[], detail?: string): HttpProblem =>
  new HttpProblem('validation-failed', detail ?? issues.map((i) => `${i.in} ${i.name}: ${i.message}`).join('; '), { errors: issues });

/** The realm of every `WWW-Authenticate` challenge (RFC 6750). */
export const REALM = 'analytics-desk';

/** 403 for a valid token that does not allow the request, with the RFC 6750 `insufficient_scope` challenge. */
export const forbidden = (detail: string): HttpProblem =>
  new HttpProblem('forbidden', detail, { headers: { 'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope"` } });

/** 503 with Retry-After, for a tenant whose file is not downloaded yet. */
export const tenantUnavailable = (tenant: string, retryAfterSeconds: number): HttpProblem =>
  new HttpProblem('tenant-unavailable', `tenant "${tenant}" is still being downloaded; retry later`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/**
 * 412 for a write whose `If-Match` does not name the target's current state: nothing was written. The current
 * tag is named in the detail and sent as `ETag` (the caller may read the target); none when it no longer exists.
 */
export const preconditionFailed = (what: string, current: string | null): HttpProblem =>
  current === null
    ? new HttpProblem('precondition-failed', `If-Match does not hold: ${what} does not exist (any more); nothing was written`)
    : new HttpProblem('precondition-failed', `If-Match does not name the current state of ${what}, which is ${current}; nothing was written`, {
        headers: { ETag: current },
      });
