import type pg from 'pg';
import type { Logger } from '../logger.js';

/** Per-minute windows, in the shape rate-limiter-flexible's PostgreSQL store reads and writes (its `key` widened to text). */
export const WINDOWS_TABLE = 'cost_limit_windows';
/** Export slots: one row per caller, its running exports' leases as `{lease id: expiry in epoch ms}`. */
export const LEASES_TABLE = 'cost_limit_exports';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS ${WINDOWS_TABLE} (key text PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint);
  CREATE TABLE IF NOT EXISTS ${LEASES_TABLE} (key text PRIMARY KEY, leases jsonb NOT NULL);`;

/** Connections of the limits' own pool: admitting a call is one short statement, and must not queue behind app-database writes waiting for their locks. */
export const LIMIT_POOL_SIZE = 2;
/** How long connecting or one statement may take before the database counts as not answering. */
export const LIMIT_STATEMENT_TIMEOUT_MS = 1000;

/** The statement runner that rate-limiter-flexible's PostgreSQL store calls (`storeType: 'pool'`). */
export interface Queryable {
  query(statement: pg.QueryConfig): Promise<pg.QueryResult>;
}

/**
 * The app database as the shared limits use it: a pool of its own, whose connecting and statements fail after
 * LIMIT_STATEMENT_TIMEOUT_MS (the caller then counts in this process), and the two tables made on first use.
 */
export class LimitStore implements Queryable {
  private schema: Promise<void> | null = null;
  private failing = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: Logger,
  ) {}

  /** Opens the store's pool on the PostgreSQL app database at `url` (nothing is connected before the first statement). */
  static async open(url: string, log: Logger): Promise<LimitStore> {
    const { default: pgModule } = await import('pg');
    const pool = new pgModule.Pool({
      connectionString: url,
      max: LIMIT_POOL_SIZE,
      connectionTimeoutMillis: LIMIT_STATEMENT_TIMEOUT_MS,
      query_timeout: LIMIT_STATEMENT_TIMEOUT_MS,
      // the database's side of the same limit: a statement the client gave up on does not run on (or wait for a
      // row lock) in the database; pool.query drops a connection whose statement failed
      statement_timeout: LIMIT_STATEMENT_TIMEOUT_MS,
      lock_timeout: LIMIT_STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: LIMIT_STATEMENT_TIMEOUT_MS,
      keepAlive: true,
      idleTimeoutMillis: 30_000,
      application_name: 'analytics-desk-server limits',
      // A counter is no ledger: a crash of PostgreSQL may forget the last fraction of a second of counts, and in
      // exchange no admission waits for its commit to reach the disk (docs/decisions/0011-limits-shared-through-postgresql.md has what that saves). An
      // `options` parameter in APP_DB_URL replaces this one.
      options: '-c synchronous_commit=off',
    });
    // an idle connection that breaks (the database restarts) is dropped; the next statement connects anew
    pool.on('error', (err) => log.warn({ err: err.message }, 'cost limits: database connection lost'));
    return new LimitStore(pool, log);
  }

  /** Runs one statement (the tables made first); the first failure after a success, and the recovery, are logged. */
  async query(statement: pg.QueryConfig): Promise<pg.QueryResult> {
    try {
      this.schema ??= this.createTables();
      await this.schema;
      const result = await this.pool.query(statement);
      if (this.failing) {
        this.failing = false;
        this.log.info('cost limits: the app database answers again; limits count across instances');
      }
      return result;
    } catch (err) {
      if (!this.failing) {
        this.failing = true;
        this.log.warn({ err: (err as Error).message }, 'cost limits: the app database does not answer; each instance counts on its own until it does');
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private createTables(): Promise<void> {
    return this.pool.query(SCHEMA).then(
      () => undefined,
      (err: { code?: string }) => {
        // instances starting together: CREATE TABLE IF NOT EXISTS can collide on the type it creates; the table exists
        if (err.code === '23505' || err.code === '42P07') return;
        this.schema = null;
        throw err;
      },
    );
  }
}
