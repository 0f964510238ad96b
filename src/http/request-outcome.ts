import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type Koa from 'koa';
import { unverifiedCaller } from '../auth/caller.js';
import type { Logger } from '../logger.js';
import { UNMATCHED_OPERATION, type Metrics } from '../metrics/metrics.js';
import { requestSpan, type SpanAttributes } from '../tracing.js';
import { clientLeft } from './problem-answer.js';
import type { RequestRecord } from './request-record.js';

// What is written once a request's answer is decided, at the end of its pass (request-pass.ts), from its record:
// the name of its span, its audit line, its log line and its duration.

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
    if (clientLeft(ctx)) line['clientLeft'] = true;
    if (record.abandoned) log.info(line, 'request');
    else if (status >= 500) log.error(line, 'request');
    else if (status >= 400) log.warn(line, 'request');
    else log.info(line, 'request');
  };
}

const REFUSED: Record<number, string> = { 401: 'unauthenticated', 403: 'forbidden', 421: 'misdirected', 429: 'rate-limited' };

/**
 * One JSON log line with `"audit": true` for every call of an always-audited operation and every refused
 * request (401, 403, 421, 429, and 404 for a tenant outside the caller's scope): operation, user, address,
 * tenant, outcome, the IDs named or created and, for audited reads, what they gave away. Never the token. A
 * streamed body (an export) is logged when the stream has closed, with its final counts. The lines are written
 * at level info whatever LOG_LEVEL says (only `silent` mutes them). Written at the end of the request's pass
 * (request-pass.ts), from its record.
 */
export function auditTrail(log: Logger, signIn: boolean): (ctx: Koa.Context, record: RequestRecord) => void {
  const audit = log.level === 'silent' ? log : log.child({ audit: true }, { level: 'info' });
  return (ctx, record) => {
    const operation = record.operation;
    const outside = record.tenants?.outsideScope ?? null;
    if (!(operation?.rule.audited ?? false) && REFUSED[ctx.status] === undefined && outside === null) return;
    const write = (): void => audit.info(auditLine(ctx, record, outside, signIn), 'audit');
    if (ctx.body instanceof Readable && !ctx.body.closed) ctx.body.once('close', write);
    else write();
  };
}

/**
 * Characters that a tool printing an audit line's text would act on or hide instead of showing: C0 controls
 * (escape sequences, line breaks), DEL, C1 controls, zero-width and bidirectional formatting characters, the line
 * and paragraph separators, the byte order mark.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const EVERY_INVISIBLE = new RegExp(INVISIBLE.source, 'g');

/**
 * Client text as an audit line shows it: C0 controls and DEL become their Unicode control pictures (ESC is `␛`,
 * LF `␊`, NUL `␀`, DEL `␡`), the other invisible characters their code point in hex (`<U+200B>`); anything else is
 * kept (docs/audit.md).
 */
export function visibleText(text: string): string {
  if (!INVISIBLE.test(text)) return text;
  return text.replace(EVERY_INVISIBLE, (char) => {
    const code = char.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}

/** Every text of a line (member names too) made visible, through nested objects. */
function visibleLine(value: unknown): unknown {
  if (typeof value === 'string') return visibleText(value);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) out[visibleText(key)] = visibleLine(member);
  return out;
}

function auditLine(ctx: Koa.Context, record: RequestRecord, outside: string | null, signIn: boolean): Record<string, unknown> {
  // before a token was checked (a refusal of the host or of another site), who the caller is as far as known
  const caller = record.caller ?? unverifiedCaller(signIn, record.address);
  const named = record.named;
  const resolved = record.tenants?.resolved.join(', ') ?? '';
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record.auditDetails ?? {})) details[key] = typeof value === 'function' ? value() : value;
  const line: Record<string, unknown> = {
    reqId: record.id,
    operationId: record.operation?.operationId ?? null,
    outcome: REFUSED[ctx.status] ?? (outside !== null && ctx.status === 404 ? 'tenant-outside-scope' : ctx.status < 400 ? 'ok' : 'failed'),
    status: ctx.status,
    user: caller.sub === null ? null : { sub: caller.sub, email: caller.email },
    address: caller.address,
    tenant: resolved || outside || named.tenant,
    ids: { ...named.ids, ...record.createdIds },
  };
  if (record.clientRequestId !== null) line['clientRequestId'] = record.clientRequestId;
  // the answer reached no one: a 503 of a request that stopped waiting, an export broken off
  if (clientLeft(ctx)) line['clientLeft'] = true;
  if (record.auditDetails !== null) line['details'] = details;
  // the tenant, the IDs, a token's sub and email are the client's text: none may steer what prints the line
  return visibleLine(line) as Record<string, unknown>;
}

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
