import type { DataSource, EntityManager } from 'typeorm';

/*
 * How writes to the app database stay atomic (issue #6: no lost update, also across two processes).
 *
 * In one process: TypeORM's better-sqlite3 driver runs every query on ONE connection (createQueryRunner returns
 * the same runner), and its transactions do not queue: a second `dataSource.transaction()` started while the
 * first awaits would run as a SAVEPOINT inside it, so two requests' reads and writes would interleave. Every
 * unit of work below therefore waits its turn on a FIFO queue per DataSource; no two units overlap.
 *
 * Across processes: a write unit starts with `BEGIN IMMEDIATE`, which takes SQLite's write lock before the
 * first read (waiting up to the busy timeout, 5 s, for the other process). A read-modify-write (next cell
 * position, a discussion's replies) thus reads what the last committer wrote. TypeORM's own `BEGIN TRANSACTION`
 * is deferred: its read would take a snapshot and the later write would fail with SQLITE_BUSY when another
 * process committed in between. Read units use a deferred `BEGIN` so their SELECTs see one committed state.
 *
 * Inside a unit only query-builder style calls are used (find, insert, update, delete), which do not open
 * transactions of their own. Commits are durable on return: the app database runs WAL with synchronous=FULL.
 */

/** The entity manager a unit of work runs its queries with. */
export type AppDbManager = EntityManager;

const queues = new WeakMap<DataSource, { tail: Promise<void> }>();

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

async function inTransaction<T>(dataSource: DataSource, begin: string, work: (manager: AppDbManager) => Promise<T>): Promise<T> {
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

/** Runs `work` alone in this process inside `BEGIN IMMEDIATE … COMMIT` (rolled back when it throws). */
export function writeUnit<T>(dataSource: DataSource, work: (manager: AppDbManager) => Promise<T>): Promise<T> {
  return inTransaction(dataSource, 'BEGIN IMMEDIATE', work);
}

/** Runs `work` alone in this process inside a read transaction (one consistent snapshot). */
export function readUnit<T>(dataSource: DataSource, work: (manager: AppDbManager) => Promise<T>): Promise<T> {
  return inTransaction(dataSource, 'BEGIN', work);
}
