import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { Problem } from '../common/problems.js';
import { AppDbFault, appDbUnavailable, classifyAppDbError, type AppDbFailure } from './failures.js';
import { COMMIT_DEADLINE_SETTING, COMMIT_DEADLINE_SQLSTATE } from './migrations/1764900000000-add-commit-deadline.js';

/*
 * How writes to the app database stay atomic: no lost update, also across several server processes.
 *
 * SQLite (one file, one machine). TypeORM's better-sqlite3 driver runs every query on ONE connection
 * (createQueryRunner returns the same runner), and its transactions do not queue: a second
 * `dataSource.transaction()` started while the first awaits would run as a SAVEPOINT inside it. Every unit of
 * work therefore waits its turn on the FIFO queue of the server's one UnitOfWork; no two units overlap in one
 * process. Across processes a write unit starts with `BEGIN IMMEDIATE`, which takes SQLite's write lock before
 * the first read (waiting up to the busy timeout for another process), so a read-modify-write (next cell
 * position, a discussion's replies) reads what the last committer wrote. Read units use a deferred `BEGIN`.
 *
 * PostgreSQL (several instances). Each unit runs on its own pooled connection in a READ COMMITTED transaction.
 * A write unit first takes a transaction-scoped advisory lock on the key it names (the notebook, the note or the
 * view it changes), waiting at most the lock timeout (the session's `lock_timeout`); units of one key run one after the other in every
 * instance, and each statement after the lock sees what the previous holder committed. Units of other keys run
 * in parallel. Read units run in REPEATABLE READ, one snapshot. Every unit ends within
 * APP_DB_TRANSACTION_TIMEOUT_MS, and a write never commits after it gave up (inPostgresTransaction).
 *
 * In both: a lock not granted in time, or a database that does not answer, is a 503 problem with Retry-After
 * (classifyAppDbError); the unit is rolled back. Inside a unit only query-builder style calls are used.
 */

/** The entity manager a unit of work runs its queries with. */
export type AppDbManager = EntityManager;

/** What a write unit serializes on: one notebook, note or view (`notebook:<tenant>`, `note:<id>`, `view:<id>`). */
export type LockKey = string;

/** Most of a write's time limit kept between its commit deadline in the database and the moment it gives up. */
const COMMIT_MARGIN_MS = 1000;

/** The time limit of a unit (PostgreSQL; SQLite's busy timeout is set when it is opened), and who hears of failures. */
export interface UnitSettings {
  /** APP_DB_TRANSACTION_TIMEOUT_MS: from asking for a connection to the answer of COMMIT. */
  readonly transactionTimeoutMs: number;
  /** Hears of every unit that failed in the database: busy, unreachable, or `other` (a bug; answered 500). */
  readonly onFailure: (failure: AppDbFailure | 'other') => void;
}

/**
 * The units of work of one app database (built once per server, shared by every service that writes to it): the
 * FIFO queue SQLite's one connection needs, and the settings of every unit.
 */
export class UnitOfWork {
  /** SQLite: the end of the queue; each unit starts when the one before it has ended. */
  private tail: Promise<void> = Promise.resolve();

  /** `appDb.dataSource` is read at the start of every unit: a 503 problem while the database is not reached. */
  constructor(
    private readonly appDb: { readonly dataSource: DataSource },
    private readonly settings: UnitSettings,
  ) {}

  /** Runs `work` as one write transaction serialized with every other write unit of `lock` (rolled back when it throws). */
  async write<T>(lock: LockKey, work: (manager: AppDbManager) => Promise<T>): Promise<T> {
    const dataSource = this.appDb.dataSource;
    return this.translated(
      isPostgres(dataSource) ? this.inPostgresTransaction(dataSource, 'READ COMMITTED', lock, work) : this.inSqliteTransaction(dataSource, 'BEGIN IMMEDIATE', work),
    );
  }

  /** Runs `work` inside a read transaction (one consistent snapshot). */
  async read<T>(work: (manager: AppDbManager) => Promise<T>): Promise<T> {
    const dataSource = this.appDb.dataSource;
    return this.translated(isPostgres(dataSource) ? this.inPostgresTransaction(dataSource, 'REPEATABLE READ', null, work) : this.inSqliteTransaction(dataSource, 'BEGIN', work));
  }

  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await work();
    } finally {
      release();
    }
  }

  private inSqliteTransaction<T>(dataSource: DataSource, begin: string, work: (manager: AppDbManager) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const runner = dataSource.createQueryRunner();
      await runner.query(begin);
      try {
        const result = await work(runner.manager);
        await runner.query('COMMIT');
        return result;
      } catch (err) {
        // after a failed COMMIT too: SQLite may keep the transaction open, and the next unit must not join it
        await runner.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /**
   * One unit on its own pooled connection, bounded by the transaction time limit from the moment it asks for a
   * connection: past it the caller gets its 503 at once, the connection is dropped (the driver's pending queries
   * fail, the database rolls back what it has not committed) and a connection that arrives later is released
   * unused. A write sets its commit deadline on the database's clock (see COMMIT_DEADLINE_SETTING) so that a
   * COMMIT still waiting in the database when the limit passes is refused when it is finally read.
   */
  private async inPostgresTransaction<T>(
    dataSource: DataSource,
    isolation: 'READ COMMITTED' | 'REPEATABLE READ',
    lock: LockKey | null,
    work: (manager: AppDbManager) => Promise<T>,
  ): Promise<T> {
    const limitMs = this.settings.transactionTimeoutMs;
    const endsAt = performance.now() + limitMs;
    const runner = dataSource.createQueryRunner();
    let stage: 'connect' | 'work' | 'commit' = 'connect';
    let gaveUp = false;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        gaveUp = true;
        reject(new AppDbFault(stage === 'connect' ? 'connect' : stage === 'commit' ? 'commit-unknown' : 'timeout'));
        abandon(runner);
      }, limitMs);
    });
    const unit = (async (): Promise<T> => {
      try {
        try {
          await runner.connect();
        } catch (err) {
          throw new AppDbFault('connect', { cause: err });
        }
        if (gaveUp) throw new AppDbFault('timeout');
        stage = 'work';
        await runner.startTransaction(isolation);
        try {
          if (lock !== null) {
            await this.setCommitDeadline(runner, endsAt);
            await runner.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lock]);
          }
          const result = await work(runner.manager);
          if (gaveUp) throw new AppDbFault('timeout');
          stage = 'commit';
          try {
            await runner.commitTransaction();
          } catch (err) {
            const { code, severity } = (err as { driverError?: { code?: unknown; severity?: unknown } }).driverError ?? {};
            // refused by the commit deadline: nothing was saved
            if (code === COMMIT_DEADLINE_SQLSTATE) throw new AppDbFault('timeout', { cause: err });
            // the database answered the COMMIT with an error of its own: not saved. No answer (the connection broke
            // after the COMMIT was sent): the database may have committed it before it went away
            // (an error the database reported carries its severity; a socket's error code does not)
            if (typeof severity !== 'string' && (runner.isReleased || classifyAppDbError(err) === 'unreachable')) {
              throw new AppDbFault('commit-unknown', { cause: err });
            }
            throw err;
          }
          return result;
        } catch (err) {
          if (runner.isTransactionActive && !runner.isReleased) await runner.rollbackTransaction().catch(() => undefined);
          throw err;
        }
      } catch (err) {
        // the driver released the runner itself: its connection broke under the unit, whatever the error says
        if (!(err instanceof AppDbFault) && !(err instanceof Problem) && runner.isReleased) throw new AppDbFault('lost', { cause: err });
        throw err;
      } finally {
        await runner.release().catch(() => undefined);
      }
    })();
    // when the time limit wins, the unit still ends (its queries fail on the dropped connection): nobody waits for it
    unit.catch(() => undefined);
    try {
      return await Promise.race([unit, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Puts the unit's commit deadline into the transaction: the database's clock now plus what remains of the time
   * limit, less a margin. The statement's round trip must stay within that margin (else 503): the database read
   * it no earlier than it was sent, so its deadline then falls before the moment the unit gives up.
   */
  private async setCommitDeadline(runner: QueryRunner, endsAt: number): Promise<void> {
    const margin = Math.min(COMMIT_MARGIN_MS, this.settings.transactionTimeoutMs / 4);
    const sentAt = performance.now();
    const remaining = Math.floor(endsAt - sentAt - margin);
    if (remaining <= 0) throw new AppDbFault('timeout');
    await runner.query(`SELECT set_config('${COMMIT_DEADLINE_SETTING}', (floor(extract(epoch FROM clock_timestamp()) * 1000) + $1)::text, true)`, [remaining]);
    if (performance.now() - sentAt > margin) throw new AppDbFault('timeout');
  }

  /** Turns a busy or unreachable database into its 503 problem; every other error passes unchanged. */
  private async translated<T>(unit: Promise<T>): Promise<T> {
    try {
      return await unit;
    } catch (err) {
      const failure = classifyAppDbError(err);
      // a problem the unit threw on purpose (a cell that breaks the rules: 400) is not a database failure
      if (failure === null && !(err instanceof Problem)) this.settings.onFailure('other');
      if (failure === null) throw err;
      this.settings.onFailure(failure);
      throw appDbUnavailable(failure, err instanceof AppDbFault && err.event === 'commit-unknown' ? 'unknown' : 'not-saved');
    }
  }
}

const isPostgres = (dataSource: DataSource): boolean => dataSource.options.type === 'postgres';

/**
 * Gives the runner's connection (when it has one) back to the pool as broken: the pool closes it and opens another on demand, and
 * the driver fails the unit's pending query. (TypeORM's PostgreSQL runner has the method; other runners do not run here.)
 */
export function abandon(runner: QueryRunner): void {
  const postgres = runner as QueryRunner & { databaseConnection?: unknown; releasePostgresConnection?: (err?: Error) => Promise<void> };
  // still waiting for a connection: the unit releases the one it gets, unused, as a healthy one
  if (postgres.databaseConnection == null) return;
  void postgres.releasePostgresConnection?.(new Error('the unit of work passed its time limit'))?.catch(() => undefined);
}
