import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from '../logger.js';
import { UNMATCHED_OPERATION, type Metrics } from '../metrics/metrics.js';
import { CLIENT_REQUEST_ID_STATE } from './audit.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Where the contract middleware names the operation a request matched (ctx.state), for the request metrics. */
export const OPERATION_STATE = 'operationId';

/**
 * A request's `ctx.state`: its id, and a logger that carries the id, made only when something logs besides the
 * request line (pino's child() copies and serializes bindings: most requests never need one).
 */
class RequestState {
  [key: string]: unknown;
  #log: Logger | undefined;

  constructor(
    private readonly root: Logger,
    readonly requestId: string,
  ) {}

  get log(): Logger {
    this.#log ??= this.root.child({ reqId: this.requestId });
    return this.#log;
  }
}

/**
 * Gives every request an id of the server's own, a logger carrying it (`ctx.state.log`), the `X-Request-Id` and
 * `X-Build-Label` response headers, and one log line when it ends; the same duration goes to `metrics` under the
 * operation the contract middleware matched. A client's `X-Request-Id` is never the id (a client could forge or
 * reuse it): when well-formed it is kept as `clientRequestId` and logged beside it.
 */
export function requestContext(log: Logger, buildLabel: string, metrics?: Metrics): Koa.Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const offered = ctx.get('x-request-id');
    const requestId = randomUUID();
    ctx.state = new RequestState(log, requestId);
    const clientRequestId = CLIENT_REQUEST_ID.test(offered) ? offered : undefined;
    if (clientRequestId !== undefined) ctx.state[CLIENT_REQUEST_ID_STATE] = clientRequestId;
    // straight to Node: Koa's ctx.set builds four arrays per call to allow for arrays and objects
    ctx.res.setHeader('X-Request-Id', requestId);
    ctx.res.setHeader('X-Build-Label', buildLabel);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      metrics?.observeRequest((ctx.state[OPERATION_STATE] as string | undefined) ?? UNMATCHED_OPERATION, ctx.method, ctx.status, ms / 1000);
      const line: Record<string, unknown> = { reqId: requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 };
      if (clientRequestId !== undefined) line['clientRequestId'] = clientRequestId;
      if (ctx.status >= 500) log.error(line, 'request');
      else if (ctx.status >= 400) log.warn(line, 'request');
      else log.info(line, 'request');
    }
  };
}

/** CORS for the configured web UI origins (bearer tokens in `Authorization`, no cookies); preflight requests are answered here. */
export function cors(origins: readonly string[]): Koa.Middleware {
  const allowed = new Set(origins);
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (origin === '' || !allowed.has(origin)) {
      await next();
      return;
    }
    ctx.vary('Origin');
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Expose-Headers', 'ETag, Content-Disposition, Retry-After, WWW-Authenticate, X-Build-Label, X-Request-Id, X-Export-Truncated, Deprecation, Sunset, Link');
    // A preflight is answered here, before any token check: browsers never send credentials on it.
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, If-Match, If-None-Match, Range, X-Request-Id');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
