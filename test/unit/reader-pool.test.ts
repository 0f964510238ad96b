import Database from 'better-sqlite3';
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { findDimensionTable } from '../../src/dimensions/dimension-table.js';
import { exportOnReaderThread } from '../../src/dimensions/thread-chunks.js';
import { WAIT } from '../../src/dimensions/csv-export-stream.js';
import { explainOnReaderThread } from '../../src/lineage/explain.js';
import { ReaderPool } from '../../src/reader-threads/pool.js';
import { RARE_MATERIAL, buildBigTenant } from '../helpers/big-tenant.js';
import { tempDir } from '../helpers/server.js';

// The reader threads themselves (src/reader-threads/pool.ts), on a tenant file of 30,000 rows: threads start on
// demand up to the bound and end when idle, a failed job gets its final reply, and jobs share a thread in turn.
const ROWS = 30_000;
const query = { entityType: null, entityId: RARE_MATERIAL, timeBucket: null, locale: 'en' as const };

/** Polls `condition` every 10 ms; false when it still does not hold after `ms`. */
async function within(ms: number, condition: () => boolean): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) if (condition()) return true;
  return condition();
}

describe('reader threads', function () {
  this.timeout(60_000);
  const data = tempDir('ads-reader-pool-');
  const file = path.join(data.dir, 'kls.sqlite');
  const pools: ReaderPool[] = [];
  const pool = (threads: number, idleMs: number): ReaderPool => {
    const made = new ReaderPool(threads, idleMs);
    pools.push(made);
    return made;
  };

  before(() => buildBigTenant(file, 'big', ROWS));
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    data.remove();
  });

  it('starts threads as jobs come, never more than the bound, and ends them once idle', async () => {
    const readers = pool(2, 300);
    expect(readers.threadCount).to.equal(0);
    const answers = await Promise.all([1, 2, 3, 4].map(() => explainOnReaderThread(file, query, readers)));
    for (const groups of answers) expect(groups.map((g) => [g.table, g.count])).to.deep.equal([['gold_big', 1]]);
    expect(readers.started).to.be.within(1, 2);
    expect(readers.threadCount).to.be.within(1, 2);
    expect(readers.jobCount).to.equal(0);
    expect(await within(5000, () => readers.threadCount === 0), 'idle threads still running').to.equal(true);
    expect((await explainOnReaderThread(file, query, readers)).length, 'a job after that starts a thread again').to.equal(1);
    expect(readers.threadCount).to.equal(1);
  });

  it('answers a job it cannot do with a failure, and the thread goes on with the next', async () => {
    const readers = pool(1, 30_000);
    const failure = await explainOnReaderThread(path.join(data.dir, 'no-such.sqlite'), query, readers).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(failure?.message).to.match(/explain failed on its reader thread/);
    expect((await explainOnReaderThread(file, query, readers)).length).to.equal(1);
    expect(readers.started).to.equal(1);
  });

  it('lets an export that waits for its client keep no thread: another job on the only thread is answered meanwhile', async () => {
    const readers = pool(1, 30_000);
    const db = new Database(file, { readonly: true });
    const table = findDimensionTable(db, 'big')!;
    db.close();
    const started = await exportOnReaderThread(readers, { file, inode: fs.statSync(file).ino, table, options: { order: 'asc', filters: [] }, cap: 1_000_000 });
    expect(started.truncated).to.equal(false);
    let waiting = 0;
    started.chunks.onReady!(() => (waiting += 1));
    // nobody takes a chunk: the thread sends the four it has credit for, then the export waits
    expect(await within(5000, () => waiting >= 4)).to.equal(true);
    expect((await explainOnReaderThread(file, query, readers)).length).to.equal(1);
    let taken = 0;
    for (let chunk = started.chunks.next(); chunk !== WAIT && chunk !== null; chunk = started.chunks.next()) taken += 1;
    expect(taken).to.equal(4);
    expect(readers.jobCount).to.equal(1);
    started.chunks.close();
    await started.finished;
    expect(readers.jobCount).to.equal(0);
    expect(readers.started).to.equal(1);
  });
});
