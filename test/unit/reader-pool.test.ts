import Database from 'better-sqlite3';
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { findDimensionTable } from '../../src/dimensions/dimension-table.js';
import { exportOnReaders } from '../../src/dimensions/reader-export.js';
import { csvRecord } from '../../src/dimensions/csv.js';
import { Problem } from '../../src/common/problems.js';
import { SLICE_ROWIDS } from '../../src/lineage/explain.js';
import type { EntityQuery } from '../../src/ports/lineage.js';
import { explainOnReaders } from '../../src/lineage/explain-job.js';
import { MainThreadReaders } from '../../src/reader-threads/main-thread.js';
import { ReaderPool } from '../../src/reader-threads/pool.js';
import type { Readers } from '../../src/reader-threads/protocol.js';
import { readerJobs } from '../../src/reader-jobs/jobs.js';
import { startReaderThread } from '../../src/reader-jobs/readers.js';
import { RARE_MATERIAL, buildBigTenant } from '../helpers/big-tenant.js';
import { tempDir } from '../helpers/server.js';

// The readers (src/reader-threads/): threads start on demand up to the bound and end when idle, a failed job gets
// its final reply, and jobs share a reader in turn; with READER_THREADS=off the same jobs run on the main thread a
// step per event-loop turn. On a tenant file of 150,000 rows (five slices of an explain's count).
const ROWS = 150_000;
const query: EntityQuery = { entityType: null, entityId: RARE_MATERIAL, timeBucket: null, locale: 'en' };
const TENANT = 'lab.big';

describe('readers', function () {
  this.timeout(60_000);
  const data = tempDir('ads-reader-pool-');
  const file = path.join(data.dir, 'kls.sqlite');
  const pools: ReaderPool[] = [];
  const pool = (threads: number, idleMs: number): ReaderPool => {
    const made = new ReaderPool(startReaderThread, threads, idleMs);
    pools.push(made);
    return made;
  };
  const explain = (readers: Readers, what = query, from = file) => explainOnReaders(readers, TENANT, from, what);

  before(() => buildBigTenant(file, 'big', ROWS));
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    data.remove();
  });

  it('starts threads as jobs come, never more than the bound, and ends them once idle', async () => {
    const readers = pool(2, 300);
    expect(readers.threadCount).to.equal(0);
    const answers = await Promise.all([1, 2, 3, 4].map(() => explain(readers)));
    for (const groups of answers) expect(groups.map((g) => [g.table, g.count])).to.deep.equal([['gold_big', 1]]);
    expect(readers.started).to.be.within(1, 2);
    expect(readers.threadCount).to.be.within(1, 2);
    expect(readers.jobCount).to.equal(0);
    await readers.threadsEnded();
    expect((await explain(readers)).length, 'a job after that starts a thread again').to.equal(1);
    expect(readers.threadCount).to.equal(1);
  });

  it('answers a job it cannot do with a failure, and the thread goes on with the next', async () => {
    const readers = pool(1, 30_000);
    const garbage = path.join(data.dir, 'not-sqlite.sqlite');
    fs.writeFileSync(garbage, 'not a database, long enough to be read as one '.repeat(100));
    const failure = await explain(readers, query, garbage).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(failure?.message).to.match(/explain failed on its reader/);
    expect((await explain(readers)).length).to.equal(1);
    expect(readers.started).to.equal(1);
  });

  for (const [name, make] of [
    ['a reader thread', () => pool(1, 30_000)],
    ['the main thread (READER_THREADS=off)', () => new MainThreadReaders(readerJobs())],
  ] as const) {
    describe(`on ${name}`, () => {
      it('answers 503 with Retry-After when the tenant file is gone', async () => {
        const failure = await explain(make(), query, path.join(data.dir, 'no-such.sqlite')).then(
          () => null,
          (err: unknown) => err,
        );
        expect(failure).to.be.instanceOf(Problem);
        expect((failure as Problem).code).to.equal('tenant-unavailable');
        expect((failure as Problem).facts.retryAfterSeconds).to.equal(1);
      });

      it('lets an export that waits for its client hold no reader: another job is answered meanwhile, then every row follows', async () => {
        const readers = make();
        const db = new Database(file, { readonly: true });
        const table = findDimensionTable(db, 'big')!;
        const expected = (db.prepare('SELECT * FROM dim_big ORDER BY rowid').raw(true).safeIntegers(true).all() as unknown[][]).map(csvRecord).join('');
        db.close();
        const started = await exportOnReaders(readers, { file, inode: fs.statSync(file).ino, table, options: { order: 'asc', filters: [] }, cap: 1_000_000 });
        expect(started.truncated).to.equal(false);
        // nobody takes a chunk while the explain runs on the same reader
        expect((await explain(readers)).length).to.equal(1);
        expect(readers.jobCount, 'the export is not over: it waits for its chunks to be taken').to.equal(1);
        let text = '';
        for (let chunk = await started.chunks.next(); chunk !== null; chunk = await started.chunks.next()) {
          text += chunk.toString('utf8');
          started.chunks.written(chunk);
        }
        expect(text === expected, 'the rows of the table, byte for byte').to.equal(true);
        expect(started.chunks.rows).to.equal(ROWS);
        await started.finished;
        expect(readers.jobCount).to.equal(0);
      });

      it('ends the job on its reader when the export is cancelled mid-way, and answers no more chunks', async () => {
        const readers = make();
        const db = new Database(file, { readonly: true });
        const table = findDimensionTable(db, 'big')!;
        db.close();
        const started = await exportOnReaders(readers, { file, inode: fs.statSync(file).ino, table, options: { order: 'asc', filters: [] }, cap: 1_000_000 });
        expect(await started.chunks.next()).to.be.instanceOf(Buffer);
        started.chunks.cancel();
        expect(await started.chunks.next()).to.equal(null);
        await started.finished;
        expect(readers.jobCount).to.equal(0);
      });
    });
  }

  it('fills the same few chunk buffers again, whatever the export\'s size, once each is handed back', async () => {
    const readers = new MainThreadReaders(readerJobs()); // on the main thread a buffer handed back is the same object
    const db = new Database(file, { readonly: true });
    const table = findDimensionTable(db, 'big')!;
    db.close();
    const started = await exportOnReaders(readers, { file, inode: fs.statSync(file).ino, table, options: { order: 'asc', filters: [] }, cap: 1_000_000 });
    const buffers = new Set<ArrayBufferLike>();
    let chunks = 0;
    for (let chunk = await started.chunks.next(); chunk !== null; chunk = await started.chunks.next()) {
      chunks += 1;
      buffers.add(chunk.buffer);
      started.chunks.written(chunk);
    }
    expect(chunks, 'chunks of the export').to.be.greaterThan(20);
    expect(buffers.size, 'buffers they came in').to.be.at.most(5);
    await started.finished;
  });

  it('counts an explain on the main thread a slice per event-loop turn', async () => {
    const readers = new MainThreadReaders(readerJobs());
    let turns = 0;
    let done = false;
    const counting = (): void => {
      turns += 1;
      if (!done) setImmediate(counting);
    };
    setImmediate(counting);
    const groups = await explain(readers);
    done = true;
    expect(groups.map((g) => [g.table, g.count])).to.deep.equal([['gold_big', 1]]);
    expect(turns).to.be.at.least(Math.ceil(ROWS / SLICE_ROWIDS));
  });

  it('counts and picks the rows slice by slice as one query over the whole table does, in table order', async () => {
    const db = new Database(file, { readonly: true });
    try {
      for (const what of [
        { ...query, entityId: 'M-0000042' },
        { ...query, entityId: 'M-0000042', timeBucket: '2026-06' },
        { ...query, entityId: 'M-0000042', entityType: 'Material' },
        { ...query, entityId: 'M-0000042', entityType: 'Case' },
        { ...query, entityId: 'no such material' },
      ]) {
        const month = what.timeBucket === null ? '' : ' AND substr(CAST(moved_on AS TEXT), 1, 7) = ?';
        const values = what.timeBucket === null ? [what.entityId] : [what.entityId, what.timeBucket];
        const count = db.prepare(`SELECT count(*) FROM gold_big WHERE material_id = ?${month}`).pluck().get(...values) as number;
        const rows = db.prepare(`SELECT * FROM gold_big WHERE material_id = ?${month} ORDER BY rowid LIMIT 20`).all(...values);
        const expected = count === 0 || what.entityType === 'Case' ? [] : [{ table: 'gold_big', label: 'Big movements', count, rows }];
        expect(await explain(new MainThreadReaders(readerJobs()), what), JSON.stringify(what)).to.deep.equal(expected);
      }
    } finally {
      db.close();
    }
  });
});
