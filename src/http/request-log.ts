import type Koa from 'koa';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger.js';
import { UNMATCHED_OPERATION, type Metrics } from '../metrics/metrics.js';
import type { RequestRecord } from './request-record.js';

/**
 * The request's log line (5xx as errors, 4xx as warnings) and its duration under its operation in `metrics`,
 * written at the end of the request's pass (request-pass.ts). The client's own `X-Request-Id` is logged beside the
 * server's id.
 */
export function requestLog(log: Logger, metrics: Metrics): (ctx: Koa.Context, record: RequestRecord) => void {
  return (ctx, record) => {
    const ms = performance.now() - record.started;
    const status = ctx.status;
    metrics.observeRequest(record.operation?.operationId ?? UNMATCHED_OPERATION, ctx.method, status, ms / 1000);
    const line: Record<string, unknown> = { reqId: record.id, method: ctx.method, path: ctx.path, status, ms: Math.round(ms * 10) / 10 };
    if (record.clientRequestId !== null) line['clientRequestId'] = record.clientRequestId;
    if (status >= 500) log.error(line, 'request');
    else if (status >= 400) log.warn(line, 'request');
    else log.info(line, 'request');
  };
}
