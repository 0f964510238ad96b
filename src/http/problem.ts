import type Koa from 'koa';
import { HttpProblem } from './errors.js';
import type { Logger } from '../logger.js';
import type { ProblemCheck } from './problem-check.js';
import { asUriReference } from './path-segments.js';
import { OPERATION_STATE } from './request-context.js';

/** Writes a problem+json response (the only way errors reach clients). */
export function sendProblem(ctx: Koa.Context, problem: HttpProblem): void {
  for (const [name, value] of Object.entries(problem.extras.headers ?? {})) ctx.set(name, value);
  ctx.status = problem.status;
  ctx.body = JSON.stringify(problem.toBody(asUriReference(ctx.path), ctx.state.requestId as string | undefined));
  ctx.set('Content-Type', 'application/problem+json');
}

/**
 * Logs an answer that breaks the contract (an undeclared status, media type or body) and returns what is sent
 * instead: the contract's 500, whose detail names only the request id.
 */
export function contractViolation(ctx: Koa.Context, operationId: string, status: number, reasons: string[]): HttpProblem {
  (ctx.state.log as Logger).error({ operationId, status, reasons }, 'response breaks the contract');
  return new HttpProblem('internal-error', `the server failed to answer this request; quote request id ${String(ctx.state.requestId)}`);
}

/**
 * The one place errors become answers, the catch of the request's pass (request-pass.ts): HttpProblem becomes its
 * problem response (4xx logged as warnings); anything else becomes a bare 500 problem with no detail from the
 * error, logged with the request id. A problem thrown while an operation is served is checked against that
 * operation's contract first, exactly as a returned result is: one it does not declare is logged as a contract
 * violation and answered as the 500.
 */
export function problemAnswer(check: ProblemCheck | null = null): (ctx: Koa.Context, err: unknown) => void {
  return (ctx, err) => {
    const log = ctx.state.log as Logger;
    if (err instanceof HttpProblem) {
      const problem = check === null ? err : declaredOrViolation(ctx, err, check);
      if (problem.status >= 500) log.error({ problem: err.code, detail: err.detail }, 'request failed');
      else log.warn({ problem: err.code, detail: err.detail }, 'request rejected');
      sendProblem(ctx, problem);
      return;
    }
    log.error({ err }, 'unexpected error');
    sendProblem(ctx, new HttpProblem('internal-error', `the server failed to answer this request; quote request id ${String(ctx.state.requestId)}`));
  };
}

/** The problem when the served operation declares it (the 500 is declared for every operation), else the 500. */
function declaredOrViolation(ctx: Koa.Context, problem: HttpProblem, check: ProblemCheck): HttpProblem {
  const operationId = ctx.state[OPERATION_STATE] as string | undefined;
  if (operationId === undefined || problem.status === 500) return problem;
  const reasons = check.reasons(operationId, problem.status, problem.toBody(asUriReference(ctx.path), ctx.state.requestId as string | undefined));
  return reasons.length === 0 ? problem : contractViolation(ctx, operationId, problem.status, reasons);
}
