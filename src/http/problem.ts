import type Koa from 'koa';
import { HttpProblem } from './errors.js';
import type { Logger } from '../logger.js';

/** Writes a problem+json response (the only way errors reach clients). */
export function sendProblem(ctx: Koa.Context, problem: HttpProblem): void {
  for (const [name, value] of Object.entries(problem.extras.headers ?? {})) ctx.set(name, value);
  ctx.status = problem.status;
  ctx.body = JSON.stringify(problem.toBody(ctx.path, ctx.state.requestId as string | undefined));
  ctx.set('Content-Type', 'application/problem+json');
}

/**
 * The one error middleware at the top of the chain: HttpProblem becomes its problem response (4xx logged as
 * warnings); anything else becomes a bare 500 problem with no detail from the error, logged with the request id.
 */
export function problemMiddleware(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const log = ctx.state.log as Logger;
      if (err instanceof HttpProblem) {
        if (err.status >= 500) log.error({ problem: err.code, detail: err.detail }, 'request failed');
        else log.warn({ problem: err.code, detail: err.detail }, 'request rejected');
        sendProblem(ctx, err);
        return;
      }
      log.error({ err }, 'unexpected error');
      sendProblem(ctx, new HttpProblem('internal-error', `the server failed to answer this request; quote request id ${String(ctx.state.requestId)}`));
    }
  };
}
