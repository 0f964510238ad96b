import type Koa from 'koa';
import { Readable } from 'node:stream';
import type { Caller } from '../auth/caller.js';
import type { Logger } from '../logger.js';
import type { ScopedTenants } from '../tenants/tenants.js';

/** What a successful audited read gave away (rows exported, the model a finding went to); getters are read when the line is written. */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null | (() => number)>>;

/** What the request named: the tenant as given (path, query or body member `tenant`) and its IDs. */
export interface NamedTargets {
  tenant: string | null;
  ids: Record<string, string>;
}

/** What the server learns about a request, for its audit line (docs/audit.md). */
export interface AuditRecord {
  /** The operation the request matched; null for a request refused before any route was matched. */
  readonly operationId: string | null;
  /** Every outcome is audited: writes (role editor or admin) and reads that give data away in bulk (`x-audit`). */
  readonly always: boolean;
  caller: Caller | null;
  tenants: ScopedTenants | null;
  /** What the request named, worked out only when a line is written. */
  named: () => NamedTargets;
  /** IDs a write created that the request could not name (a new view's `view_id`). */
  created: Record<string, string>;
  details: AuditDetails | null;
}

/** Where the record is kept (ctx.state). */
export const AUDIT_STATE = 'audit';

/** Where the client's own `X-Request-Id` is kept (ctx.state), logged beside the server's id. */
export const CLIENT_REQUEST_ID_STATE = 'clientRequestId';

const REFUSED: Record<number, string> = { 401: 'unauthenticated', 403: 'forbidden', 421: 'misdirected', 429: 'rate-limited' };

const nothingNamed = (): NamedTargets => ({ tenant: null, ids: {} });

/** The request's audit record, made on first use. */
export function auditRecordOf(ctx: Koa.Context, operationId: string | null, always: boolean): AuditRecord {
  const state = ctx.state as Record<string, unknown>;
  const existing = state[AUDIT_STATE] as AuditRecord | undefined;
  if (existing !== undefined) return existing;
  const record: AuditRecord = { operationId, always, caller: null, tenants: null, named: nothingNamed, created: {}, details: null };
  state[AUDIT_STATE] = record;
  return record;
}

/**
 * One JSON log line with `"audit": true` for every call of an always-audited operation and every refused
 * request (401, 403, 421, 429, and 404 for a tenant outside the caller's scope): operation, user, address,
 * tenant, outcome, the IDs named or created and, for audited reads, what they gave away. Never the token. A
 * streamed body (an export) is logged when the stream has closed, with its final counts. The lines are written
 * at level info whatever LOG_LEVEL says (only `silent` mutes them). Run once per request, last in its pass
 * (request-pass.ts), when the answer is decided.
 */
export function auditTrail(log: Logger): (ctx: Koa.Context) => void {
  const audit = log.level === 'silent' ? log : log.child({ audit: true }, { level: 'info' });
  return (ctx) => {
    const record = ctx.state[AUDIT_STATE] as AuditRecord | undefined;
    if (record === undefined) return;
    const outside = record.tenants?.outsideScope ?? null;
    if (!record.always && REFUSED[ctx.status] === undefined && outside === null) return;
    const write = (): void => audit.info(auditLine(ctx, record, outside), 'audit');
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

function auditLine(ctx: Koa.Context, record: AuditRecord, outside: string | null): Record<string, unknown> {
  const caller = record.caller;
  const named = record.named();
  const resolved = record.tenants?.resolved.join(', ') ?? '';
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record.details ?? {})) details[key] = typeof value === 'function' ? value() : value;
  const line: Record<string, unknown> = {
    reqId: ctx.state.requestId,
    operationId: record.operationId,
    outcome: REFUSED[ctx.status] ?? (outside !== null && ctx.status === 404 ? 'tenant-outside-scope' : ctx.status < 400 ? 'ok' : 'failed'),
    status: ctx.status,
    user: caller === null || caller.sub === null ? null : { sub: caller.sub, email: caller.email },
    address: caller?.address ?? ctx.ip,
    tenant: resolved || outside || named.tenant,
    ids: { ...named.ids, ...record.created },
  };
  const clientRequestId = ctx.state[CLIENT_REQUEST_ID_STATE];
  if (clientRequestId !== undefined) line['clientRequestId'] = clientRequestId;
  if (record.details !== null) line['details'] = details;
  // the tenant, the IDs, a token's sub and email are the client's text: none may steer what prints the line
  return visibleLine(line) as Record<string, unknown>;
}
