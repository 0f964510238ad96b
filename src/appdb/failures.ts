import { Problem } from '../common/problems.js';

/** Why the app database could not do a unit of work, when it is not the request's fault. */
export type AppDbFailure = 'busy' | 'unreachable';

/** Seconds a client should wait: a lock is usually free again at once, a database takes longer to come back. */
const RETRY_AFTER_S: Record<AppDbFailure, number> = { busy: 1, unreachable: 5 };

// PostgreSQL SQLSTATEs: lock_not_available, deadlock_detected, serialization_failure, query_canceled (lock or
// statement timeout); admin_shutdown, crash_shutdown, cannot_connect_now, and the connection_exception class.
const PG_BUSY = new Set(['55P03', '40P01', '40001', '57014']);
const PG_UNREACHABLE = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const PG_CLIENT_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|Cannot use a pool after calling end/i;

/**
 * Classifies an error of the app database: a lock that was not free in time (SQLite SQLITE_BUSY after its busy
 * timeout, PostgreSQL lock_timeout, deadlock, serialization failure) is `busy`; a database that does not answer is
 * `unreachable`; anything else (a bug, a constraint) is null and stays a 500.
 */
export function classifyAppDbError(err: unknown): AppDbFailure | null {
  const candidates = [err, (err as { driverError?: unknown } | null)?.driverError, (err as { cause?: unknown } | null)?.cause];
  for (const candidate of candidates) {
    if (candidate === null || typeof candidate !== 'object') continue;
    const { code, message } = candidate as { code?: unknown; message?: unknown };
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED') return 'busy';
    if (typeof code === 'string' && PG_BUSY.has(code)) return 'busy';
    if (typeof code === 'string' && (PG_UNREACHABLE.has(code) || NETWORK.has(code))) return 'unreachable';
    if (typeof message === 'string' && PG_CLIENT_MESSAGES.test(message)) return 'unreachable';
  }
  return null;
}

/** The 503 problem of an app database that is busy or unreachable, with Retry-After. */
export function appDbUnavailable(failure: AppDbFailure): Problem {
  const detail =
    failure === 'busy'
      ? 'the app database did not grant the lock this write needs in time (another write holds it); retry shortly'
      : 'the app database does not answer; retry later';
  return new Problem('app-database-unavailable', detail, { retryAfterSeconds: RETRY_AFTER_S[failure] });
}
