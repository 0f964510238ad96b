import { createHash } from 'node:crypto';
import type Koa from 'koa';
import { requestSpan, type SpanAttributes } from '../telemetry/tracing.js';
import { AUDIT_STATE, type AuditRecord } from './audit.js';
import type { ContractIndex } from './contract-index.js';
import { OPERATION_STATE } from './request-context.js';

/**
 * Names the request's span (the HTTP instrumentation's, used only while tracing runs) after the operation the
 * contract matched, with `http.route` (the path template), `ads.tenant` (the tenants the request was served from,
 * as the audit record has them) and `user.hash` (the SHA-256 of the caller's token `sub`; the `sub` itself is
 * never recorded). The status is the instrumentation's `http.response.status_code`. A request that matched no
 * operation keeps the instrumentation's name (its method). The values of the query are replaced by `REDACTED` in
 * `url.query` (search text, filters and entity IDs stay out of traces, as they stay out of the request log line).
 * A step of the request's pass (request-pass.ts): called as the request starts, it gives what names the span at
 * its end, or null when no span is recorded.
 */
export function requestSpanNaming(index: ContractIndex): (ctx: Koa.Context) => (() => void) | null {
  return (ctx) => {
    const span = requestSpan();
    if (span === null) return null;
    return () => {
      const state = ctx.state as Record<string, unknown>;
      const operationId = state[OPERATION_STATE];
      const attributes: Record<string, string> = {};
      if (ctx.querystring !== '') attributes['url.query'] = redactedQuery(ctx.querystring);
      if (typeof operationId === 'string') {
        span.updateName(operationId);
        const route = index.operations.get(operationId)?.route;
        if (route !== undefined) attributes['http.route'] = route;
      }
      const record = state[AUDIT_STATE] as AuditRecord | undefined;
      const tenants = record?.tenants?.resolved ?? [];
      if (tenants.length > 0) attributes['ads.tenant'] = tenants.join(',');
      const sub = record?.caller?.sub;
      if (typeof sub === 'string') attributes['user.hash'] = createHash('sha256').update(sub).digest('hex');
      span.setAttributes(attributes as SpanAttributes);
    };
  };
}

/** The query's parameter names, each with the value `REDACTED`. */
function redactedQuery(query: string): string {
  return [...new URLSearchParams(query).keys()].map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
}
