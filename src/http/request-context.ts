import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { performance } from 'node:perf_hooks';
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
    readonly started: number,
  ) {}

  get log(): Logger {
    this.#log ??= this.root.child({ reqId: this.requestId });
    return this.#log;
  }
}

/** The first and the last step of every request's pass (request-pass.ts). */
export interface RequestContext {
  /** Gives the request its state, its id and the `X-Request-Id` and `X-Build-Label` headers. */
  begin(ctx: Koa.Context): void;
  /** Writes the request's log line and its duration. */
  end(ctx: Koa.Context): void;
}

/**
 * Gives every request an id of the server's own, a logger carrying it (`ctx.state.log`), the `X-Request-Id` and
 * `X-Build-Label` response headers, and one log line when it ends; the same duration goes to `metrics` under the
 * operation the contract middleware matched. A client's `X-Request-Id` is never the id (a client could forge or
 * reuse it): when well-formed it is kept as `clientRequestId` and logged beside it.
 */
export function requestContext(log: Logger, buildLabel: string, metrics?: Metrics): RequestContext {
  return {
    begin(ctx) {
      const requestId = randomUUID();
      const state = new RequestState(log, requestId, performance.now());
      ctx.state = state;
      const offered = ctx.get('x-request-id');
      if (offered !== '' && CLIENT_REQUEST_ID.test(offered)) state[CLIENT_REQUEST_ID_STATE] = offered;
      // straight to Node: Koa's ctx.set builds four arrays per call to allow for arrays and objects
      ctx.res.setHeader('X-Request-Id', requestId);
      ctx.res.setHeader('X-Build-Label', buildLabel);
    },
    end(ctx) {
      const state = ctx.state as RequestState;
      const ms = performance.now() - state.started;
      const status = ctx.status;
      metrics?.observeRequest((state[OPERATION_STATE] as string | undefined) ?? UNMATCHED_OPERATION, ctx.method, status, ms / 1000);
      const line: Record<string, unknown> = { reqId: state.requestId, method: ctx.method, path: ctx.path, status, ms: Math.round(ms * 10) / 10 };
      const clientRequestId = state[CLIENT_REQUEST_ID_STATE];
      if (clientRequestId !== undefined) line['clientRequestId'] = clientRequestId;
      if (status >= 500) log.error(line, 'request');
      else if (status >= 400) log.warn(line, 'request');
      else log.info(line, 'request');
    },
  };
}

/**
 * CORS for the configured web UI origins (bearer tokens in `Authorization`, no cookies): a step of the request's
 * pass; it answers a preflight request itself (true).
 */
export function cors(origins: readonly string[]): (ctx: Koa.Context) => boolean {
  const allowed = new Set(origins);
  return (ctx) => {
    const origin = ctx.get('origin');
    if (origin === '' || !allowed.has(origin)) return false;
    ctx.vary('Origin');
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Expose-Headers', 'ETag, Content-Disposition, Retry-After, WWW-Authenticate, X-Build-Label, X-Request-Id, X-Export-Truncated, Deprecation, Sunset, Link');
    // A preflight is answered here, before any token check: browsers never send credentials on it.
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, If-Match, If-None-Match, Range, X-Request-Id');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return true;
    }
    return false;
  };
}
