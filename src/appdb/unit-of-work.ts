import type { DataSource, EntityManager } from 'typeorm';
import { Problem } from '../common/problems.js';
import { appDbUnavailable, classifyAppDbError, type AppDbFailure } from './failures.js';

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
 * view it changes), waiting at most the lock timeout; units of one key run one after the other in every
 * instance, and each statement after the lock sees what the previous holder committed. Units of other keys run
 * in parallel. Read units run in REPEATABLE READ, one snapshot.
 *
 * In both: a lock not granted in time, or a database that does not answer, is a 503 problem with Retry-After
 * (classifyAppDbError); the unit is rolled back. Inside a unit only query-builder style calls are used.
 */

/** The entity manager a unit of work runs its queries with. */
export type AppDbManager = EntityManager;

/** What a write unit serializes on: one notebook, note or view (`notebook:<tenant>`, `note:<id>`, `view:<id>`). */
export type LockKey = string;

/** How long a write waits for its lock (PostgreSQL; SQLite's busy timeout is set when it is opened), and who hears of failures. */
export interface UnitSettings {
  readonly lockTimeoutMs: number;
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

  private async inPostgresTransaction<T>(
    dataSource: DataSource,
    isolation: 'READ COMMITTED' | 'REPEATABLE READ',
    lock: LockKey | null,
    work: (manager: AppDbManager) => Promise<T>,
  ): Promise<T> {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction(isolation);
      try {
        if (lock !== null) {
          await runner.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(this.settings.lockTimeoutMs))}`);
          await runner.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lock]);
        }
        const result = await work(runner.manager);
        await runner.commitTransaction();
        return result;
      } catch (err) {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        throw err;
      }
    } finally {
      await runner.release().catch(() => undefined);
    }
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
      throw appDbUnavailable(failure);
    }
  }
}

const isPostgres = (dataSource: DataSource): boolean => dataSource.options.type === 'postgres';
