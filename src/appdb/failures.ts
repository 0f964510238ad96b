import { QueryRunnerAlreadyReleasedError } from 'typeorm';
import { Problem } from '../common/problems.js';

/** Why the app database could not do a unit of work, when it is not the request's fault. */
export type AppDbFailure = 'busy' | 'unreachable';

/** Seconds a client should wait: a lock is usually free again at once, a database takes longer to come back. */
const RETRY_AFTER_S: Record<AppDbFailure, number> = { busy: 1, unreachable: 5 };

/**
 * What a unit of work saw happen to the database, told by the unit itself (not read from an error message): no
 * connection within its time ('connect'), the connection lost under it ('lost': the driver released it, the
 * socket closed), its time limit passed before COMMIT was sent ('timeout'), or while COMMIT was in flight
 * ('commit-unknown': the write may have been saved, see docs/deployment.md).
 */
export type AppDbEvent = 'connect' | 'lost' | 'timeout' | 'commit-unknown';

/** A unit of work that ended because of `event`; answered 503 as `unreachable`. */
export class AppDbFault extends Error {
  constructor(
    readonly event: AppDbEvent,
    options?: { cause?: unknown },
  ) {
    super(`app database: ${event}`, options);
    this.name = 'AppDbFault';
  }
}

// SQLSTATE classes and codes: 08 connection exception, 53 insufficient resources (too many connections, out of
// memory or disk), 57P operator intervention (shutdown, crash, starting up), 25006 read_only_sql_transaction (a
// standby, or default_transaction_read_only during a failover: no write is accepted); lock_not_available, deadlock,
// serialization failure and query_canceled (lock or statement timeout, and the commit deadline of a write).
const PG_BUSY = new Set(['55P03', '40P01', '40001', '57014']);
const PG_UNREACHABLE_CLASSES = ['08', '53', '57P', '25006'];
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Classifies an error of the app database by what happened: a unit's own fault (AppDbFault), a query runner the
 * driver released when its connection broke, a SQLSTATE of the connection, resource or shutdown classes, a socket
 * error code, a database that accepts no writes are `unreachable`; a lock not free in time (SQLite SQLITE_BUSY after its busy timeout, PostgreSQL
 * lock_timeout, deadlock, serialization failure, statement timeout) is `busy`; anything else (a bug, a
 * constraint) is null and stays a 500.
 */
export function classifyAppDbError(err: unknown): AppDbFailure | null {
  const candidates = [err, (err as { driverError?: unknown } | null)?.driverError, (err as { cause?: unknown } | null)?.cause];
  for (const candidate of candidates) {
    if (candidate === null || typeof candidate !== 'object') continue;
    if (candidate instanceof AppDbFault || candidate instanceof QueryRunnerAlreadyReleasedError) return 'unreachable';
    const { code } = candidate as { code?: unknown };
    if (typeof code !== 'string') continue;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED') return 'busy';
    if (PG_BUSY.has(code)) return 'busy';
    if (NETWORK.has(code) || (/^[0-9A-Z]{5}$/.test(code) && PG_UNREACHABLE_CLASSES.some((prefix) => code.startsWith(prefix)))) return 'unreachable';
  }
  return null;
}

/** The 503 problem of an app database that is busy or unreachable, with Retry-After; `unknown`: a commit whose outcome is not known. */
export function appDbUnavailable(failure: AppDbFailure, outcome: 'not-saved' | 'unknown' = 'not-saved'): Problem {
  const detail =
    failure === 'busy'
      ? 'the app database did not grant the lock this write needs in time (another write holds it); retry shortly'
      : outcome === 'unknown'
        ? 'the app database did not confirm this write in time; it may have been saved: read it before you retry'
        : 'the app database does not answer; retry later';
  return new Problem('app-database-unavailable', detail, { retryAfterSeconds: RETRY_AFTER_S[failure] });
}
