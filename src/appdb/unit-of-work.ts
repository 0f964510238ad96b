import type { DataSource, EntityManager } from 'typeorm';
import { HttpProblem } from '../http/errors.js';
import { appDbUnavailable, classifyAppDbError, type AppDbFailure } from './failures.js';

/*
 * How writes to the app database stay atomic: no lost update, also across several server processes.
 *
 * SQLite (one file, one machine). TypeORM's better-sqlite3 driver runs every query on ONE connection
 * (createQueryRunner returns the same runner), and its transactions do not queue: a second
 * `dataSource.transaction()` started while the first awaits would run as a SAVEPOINT inside it. Every unit of
 * work therefore waits its turn on a FIFO queue per DataSource; no two units overlap in one process. Across
 * processes a write unit starts with `BEGIN IMMEDIATE`, which takes SQLite's write lock before the first read
 * (waiting up to the busy timeout for another process), so a read-modify-write (next cell position, a
 * discussion's replies) reads what the last committer wrote. Read units use a deferred `BEGIN`.
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

/** Per DataSource: how long a write waits for its lock (PostgreSQL; SQLite's busy timeout is set when it is opened), and who hears of failures. */
export interface UnitSettings {
  readonly lockTimeoutMs: number;
  /** Hears of every unit that failed in the database: busy, unreachable, or `other` (a bug; answered 500). */
  readonly onFailure: (failure: AppDbFailure | 'other') => void;
}

const queues = new WeakMap<DataSource, { tail: Promise<void> }>();
const settings = new WeakMap<DataSource, UnitSettings>();
const DEFAULT_SETTINGS: UnitSettings = { lockTimeoutMs: 5000, onFailure: () => {} };

/** Sets the unit settings of a DataSource (done when the app database is opened). */
export function configureUnits(dataSource: DataSource, unitSettings: UnitSettings): void {
  settings.set(dataSource, unitSettings);
}

async function exclusive<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  let queue = queues.get(dataSource);
  if (queue === undefined) {
    queue = { tail: Promise.resolve() };
    queues.set(dataSource, queue);
  }
  const previous = queue.tail;
  let release!: () => void;
  queue.tail = new Promise<void>((resolve) => {
    release = resolve;
  });
  await previous;
  try {
    return await work();
  } finally {
    release();
  }
}

async function inSqliteTransaction<T>(dataSource: DataSource, begin: string, work: (manager: AppDbManager) => Promise<T>): Promise<T> {
  return exclusive(dataSource, async () => {
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

async function inPostgresTransaction<T>(
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
        await runner.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round((settings.get(dataSource) ?? DEFAULT_SETTINGS).lockTimeoutMs))}`);
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
async function translated<T>(dataSource: DataSource, unit: Promise<T>): Promise<T> {
  try {
    return await unit;
  } catch (err) {
    const failure = classifyAppDbError(err);
    const { onFailure } = settings.get(dataSource) ?? DEFAULT_SETTINGS;
    // a problem the unit threw on purpose (a cell that breaks the rules: 400) is not a database failure
    if (failure === null && !(err instanceof HttpProblem)) onFailure('other');
    if (failure === null) throw err;
    onFailure(failure);
    throw appDbUnavailable(failure);
  }
}

const isPostgres = (dataSource: DataSource): boolean => dataSource.options.type === 'postgres';

/** Runs `work` as one write transaction serialized with every other write unit of `lock` (rolled back when it throws). */
export function writeUnit<T>(dataSource: DataSource, lock: LockKey, work: (manager: AppDbManager) => Promise<T>): Promise<T> {
  return translated(dataSource, isPostgres(dataSource) ? inPostgresTransaction(dataSource, 'READ COMMITTED', lock, work) : inSqliteTransaction(dataSource, 'BEGIN IMMEDIATE', work));
}

/** Runs `work` inside a read transaction (one consistent snapshot). */
export function readUnit<T>(dataSource: DataSource, work: (manager: AppDbManager) => Promise<T>): Promise<T> {
  return translated(dataSource, isPostgres(dataSource) ? inPostgresTransaction(dataSource, 'REPEATABLE READ', null, work) : inSqliteTransaction(dataSource, 'BEGIN', work));
}
