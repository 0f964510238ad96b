import type { ServerResponse } from 'node:http';
import type Koa from 'koa';
import { Problem, type ProblemFacts, type TokenChallenge } from '../common/problems.js';
import { deprecationHeaders } from './deprecation.js';
import { asUriReference } from './request-target.js';
import type { RequestRecord } from './request-record.js';
import type { ContractIndex } from './contract-index.js';

/** The realm of every `WWW-Authenticate` challenge (RFC 6750). */
export const REALM = 'analytics-desk';

const CHALLENGES: Record<TokenChallenge, string> = {
  'token-required': `Bearer realm="${REALM}"`,
  'invalid-token': `Bearer realm="${REALM}", error="invalid_token"`,
  'insufficient-scope': `Bearer realm="${REALM}", error="insufficient_scope"`,
};

/** The headers that say a problem's facts: `Retry-After`, `ETag`, `Allow`, `WWW-Authenticate`, `Content-Range`. */
export function problemHeaders(facts: ProblemFacts): Record<string, string> {
  const headers: Record<string, string> = {};
  if (facts.retryAfterSeconds !== undefined) headers['Retry-After'] = String(facts.retryAfterSeconds);
  if (facts.currentTag !== undefined) headers['ETag'] = facts.currentTag;
  if (facts.allowedMethods !== undefined) headers['Allow'] = facts.allowedMethods.join(', ');
  if (facts.challenge !== undefined) headers['WWW-Authenticate'] = CHALLENGES[facts.challenge];
  if (facts.representationBytes !== undefined) headers['Content-Range'] = `bytes */${facts.representationBytes}`;
  return headers;
}

/** Whether the request's client closed its connection before the answer (nothing written reaches it). */
export const clientLeft = (ctx: Koa.Context): boolean => !ctx.res.writableFinished && ctx.req.socket?.destroyed === true;

/**
 * A signal aborted once the response's connection closes before the answer was written (its client has gone), at
 * once when it has closed already; `dispose` stops listening.
 */
export function clientGoneSignal(res: ServerResponse): { signal: AbortSignal; dispose: () => void } {
  const gone = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished) gone.abort();
  };
  // a connection closed before this was asked for (while the request was authenticated, validated, limited) sends
  // no close event any more
  if (res.closed) onClose();
  else res.once('close', onClose);
  return { signal: gone.signal, dispose: () => res.off('close', onClose) };
}

/** Writes a problem+json response (the only way errors reach clients). */
export function sendProblem(ctx: Koa.Context, record: RequestRecord, problem: Problem): void {
  const headers = problemHeaders(problem.facts);
  for (const name of Object.keys(headers)) ctx.set(name, headers[name]!);
  // a deprecated operation says so on its problem answers too (docs/versioning.md, "Deprecation")
  const deprecation = record.operation?.deprecation ?? null;
  const notices = deprecation === null ? null : deprecationHeaders(deprecation, { query: ctx.query, headers: ctx.headers });
  if (notices !== null) for (const name of Object.keys(notices)) ctx.set(name, notices[name]!);
  ctx.status = problem.status;
  ctx.body = JSON.stringify(problem.toBody(asUriReference(ctx.path), record.id));
  ctx.set('Content-Type', 'application/problem+json');
}

/** The 500 whose detail names only the request id: what a client gets for anything the server did wrong. */
export const internalError = (record: RequestRecord): Problem => new Problem('internal-error', `the server failed to answer this request; quote request id ${record.id}`);

/**
 * Logs an answer that breaks the contract (an undeclared status, media type or body) and returns what is sent
 * instead: the contract's 500.
 */
export function contractViolation(record: RequestRecord, operationId: string, status: number, reasons: string[]): Problem {
  record.log.error({ operationId, status, reasons }, 'response breaks the contract');
  return internalError(record);
}

/**
 * The one place errors become answers, the catch of the request's pass (request-pass.ts): a Problem becomes its
 * problem response (4xx logged as warnings); anything else becomes a bare 500 problem with no detail from the
 * error, logged with the request id. A problem thrown while an operation is served (handlers throw theirs too:
 * a result is never a problem) is checked against that operation's contract first: one it does not declare is
 * logged as a contract violation and answered as the 500.
 */
export function problemAnswer(check: ProblemCheck): (ctx: Koa.Context, record: RequestRecord, err: unknown) => void {
  return (ctx, record, err) => {
    if (err instanceof Problem) {
      if (err.facts.auditDetails !== undefined) record.auditDetails ??= err.facts.auditDetails;
      const problem = declaredOrViolation(ctx, record, err, check);
      // a failure or refusal keeps its level when the client has gone meanwhile; only the problem raised because
      // it went (it stopped waiting) is no failure
      const left = clientLeft(ctx);
      const line = { problem: err.code, detail: err.detail, ...(err.facts.cause === undefined ? {} : { cause: err.facts.cause }), ...(left ? { clientLeft: true } : {}) };
      if (err.facts.clientLeft === true) {
        record.abandoned = true;
        record.log.info(line, 'request abandoned by its client');
      } else if (problem.status >= 500) record.log.error(line, 'request failed');
      else record.log.warn(line, 'request rejected');
      sendProblem(ctx, record, problem);
      return;
    }
    record.log.error({ err }, 'unexpected error');
    sendProblem(ctx, record, internalError(record));
  };
}

/** The problem when the served operation declares it (the 500 is declared for every operation), else the 500. */
function declaredOrViolation(ctx: Koa.Context, record: RequestRecord, problem: Problem, check: ProblemCheck): Problem {
  const operationId = record.operation?.operationId;
  if (operationId === undefined || problem.status === 500) return problem;
  const reasons = check.reasons(operationId, problem.status, problem.toBody(asUriReference(ctx.path), record.id));
  return reasons.length === 0 ? problem : contractViolation(record, operationId, problem.status, reasons);
}

/**
 * The contract's judgement of a problem an operation answers: the operation must
 * declare the status with `application/problem+json`, and (when bodies are checked) the body must fit that
 * response's schema. openapi-backend validates `application/json` responses only, so problems get this check.
 */
export interface ProblemCheck {
  /** Why `body` with `status` breaks the contract of `operationId`; empty when it does not. */
  reasons(operationId: string, status: number, body: unknown): string[];
}

/** The check over the contract's index; `checkBodies` is RESPONSE_VALIDATION (statuses are always checked). */
export function problemCheck(index: ContractIndex, checkBodies: boolean): ProblemCheck {
  return {
    reasons(operationId, status, body) {
      const operation = index.operations.get(operationId);
      if (operation === undefined) return [`operation ${operationId} is not in the contract`];
      const declared = operation.responses[String(status)];
      if (declared === undefined) return [`status ${status} is not declared`];
      if (!declared.problem) return [`status ${status} is not declared as application/problem+json`];
      if (!checkBodies || declared.problemSchema === undefined) return [];
      const validate = index.schemas.componentValidator(declared.problemSchema);
      if (validate(body)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}`);
    },
  };
}
