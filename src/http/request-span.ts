import { createHash } from 'node:crypto';
import type Koa from 'koa';
import { requestSpan, type SpanAttributes } from '../tracing.js';
import type { RequestRecord } from './request-record.js';

/**
 * Names the request's span (the HTTP instrumentation's, used only while tracing runs) after the operation the
 * request matched, with `http.route` (the path template), `ads.tenant` (the tenants the request was served from)
 * and `user.hash` (the SHA-256 of the caller's token `sub`; the `sub` itself is never recorded). The status is the
 * instrumentation's `http.response.status_code`. A request that matched no operation keeps the instrumentation's
 * name (its method). The values of the query are replaced by `REDACTED` in `url.query` (search text, filters and
 * entity IDs stay out of traces, as they stay out of the request log line). Written at the end of the request's
 * pass (request-pass.ts).
 */
export function nameRequestSpan(ctx: Koa.Context, record: RequestRecord): void {
  const span = requestSpan();
  if (span === null) return;
  const attributes: Record<string, string> = {};
  if (ctx.querystring !== '') attributes['url.query'] = redactedQuery(ctx.querystring);
  const operation = record.operation;
  if (operation !== null) {
    span.updateName(operation.operationId);
    attributes['http.route'] = operation.route;
  }
  const tenants = record.tenants?.resolved ?? [];
  if (tenants.length > 0) attributes['ads.tenant'] = tenants.join(',');
  const sub = record.caller?.sub;
  if (typeof sub === 'string') attributes['user.hash'] = createHash('sha256').update(sub).digest('hex');
  span.setAttributes(attributes as SpanAttributes);
}

/** The query's parameter names, each with the value `REDACTED`. */
function redactedQuery(query: string): string {
  return [...new URLSearchParams(query).keys()].map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
}
