import type Koa from 'koa';
import type { Caller } from '../auth/caller.js';
import type { Logger } from '../logger.js';
import type { ScopedTenants } from '../tenants/tenants.js';

/** What the contract middleware learns about a request, for its audit line. */
export interface AuditRecord {
  readonly operationId: string;
  /** The operation changes stored data (its role is editor or admin). */
  readonly write: boolean;
  caller: Caller | null;
  tenants: ScopedTenants | null;
  /** IDs the request named or created (`view_id`, `cell_id`, `probe_id`…). */
  ids: Record<string, string>;
}

/** Where the contract middleware leaves the record (ctx.state). */
export const AUDIT_STATE = 'audit';

const REFUSED: Record<number, string> = { 401: 'unauthenticated', 403: 'forbidden', 429: 'rate-limited' };

/**
 * One JSON log line with `"audit": true` for every call of a write operation and every refused request (401,
 * 403, 429, and 404 for a tenant outside the caller's scope): operation, user, tenant, outcome and IDs, never the
 * token. The lines are written at level info whatever LOG_LEVEL says (only `silent` mutes them).
 */
export function auditTrail(log: Logger): Koa.Middleware {
  const audit = log.level === 'silent' ? log : log.child({ audit: true }, { level: 'info' });
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const record = ctx.state[AUDIT_STATE] as AuditRecord | undefined;
      const outside = record?.tenants?.outsideScope ?? null;
      if (record !== undefined && (record.write || REFUSED[ctx.status] !== undefined || outside !== null)) {
        const caller = record.caller;
        audit.info(
          {
            reqId: ctx.state.requestId,
            operationId: record.operationId,
            outcome: REFUSED[ctx.status] ?? (outside !== null && ctx.status === 404 ? 'tenant-outside-scope' : ctx.status < 400 ? 'ok' : 'failed'),
            status: ctx.status,
            user: caller === null || caller.mode === 'none' ? null : { sub: caller.sub, email: caller.email },
            address: ctx.ip,
            tenant: record.tenants?.resolved.join(', ') || outside,
            ids: record.ids,
          },
          'audit',
        );
      }
    }
  };
}
