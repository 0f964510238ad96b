import { expect } from 'chai';
import http from 'node:http';
import Database from 'better-sqlite3';
import { csvRecord } from '../../src/dimensions/csv.js';
import fs from 'node:fs';
import { findDimensionTable } from '../../src/dimensions/dimension-table.js';
import { PARALLEL_MIN_ROWS, parallelChunks, parallelExportsStarted, planParallelExport } from '../../src/dimensions/parallel-export.js';
import { dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

// Large unsorted exports are encoded on the main thread and a worker thread in alternating rowid blocks of
// 4,096 (src/dimensions/parallel-export.ts), from SQLite's JSON lines where a block holds no BLOB
// (src/dimensions/json-block.ts); these tests hold them to what one thread writes row by row, byte for byte.
const ROWS = PARALLEL_MIN_ROWS + 12_000;
const TEXTS = ['plain', 'with, comma', 'say "hi"', 'line\nbreak', 'cr\rx', '=SUM(A1)', '-10%', '+41 44', '@Lager', '\ttab', 'Ünïcödé ß', '', null];
const PRICES = [12.5, -3.25, 1e21, 0.1 + 0.2, 2450, null, -0];
const BIG = 'x'.repeat(100_000); // longer than a chunk's slack: sent on its own

function trickyRows(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (let id = 1; rows.length < ROWS; id += 1) {
    if (id % 97 === 0) continue; // gaps in the rowids
    rows.push({
      id,
      name: id === 100 || id === 5000 ? BIG : TEXTS[id % TEXTS.length],
      price: PRICES[id % PRICES.length],
      qty: id % 11 === 0 ? 9007199254740993n : -(id % 5),
      flag: id % 2,
      // BLOBs only in the first block: it is read row by row, the others from SQLite's JSON lines
      raw: id < 4000 && id % 7 === 0 ? Buffer.from([0xca, 0xfe, id % 256]) : null,
    });
  }
  return rows;
}

describe('dimension export on two threads', function () {
  this.timeout(60_000);
  let server: TestServer;
  let data: ReturnType<typeof dataDirWith>;
  const url = (query = '') => `${server.url}/lab.tricky/dimensions/tricky/export${query}`;

  before(async () => {
    data = dataDirWith({
      tenants: {
        'lab.tricky': {
          dimensions: { columns: 'entity TEXT PRIMARY KEY, table_name TEXT, label_en TEXT, label_de TEXT, label_fr TEXT', rows: [{ entity: 'tricky', table_name: 'dim_tricky', label_en: 'Tricky' }] },
          dim_tricky: { columns: 'id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, flag INTEGER, raw BLOB', rows: trickyRows() },
        },
      },
    });
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  /** What one thread writes for the whole table: csvRecord over the rows in rowid order. */
  function expectedCsv(): string {
    const db = new Database(data.klsFile('lab.tricky'), { readonly: true });
    try {
      const rows = db.prepare('SELECT * FROM dim_tricky ORDER BY rowid').raw(true).safeIntegers(true).all() as unknown[][];
      return csvRecord(['id', 'name', 'price', 'qty', 'flag', 'raw']) + rows.map(csvRecord).join('');
    } finally {
      db.close();
    }
  }

  it('writes what one thread writes, byte for byte, and runs on two threads', async () => {
    const before = parallelExportsStarted();
    const res = await fetch(url());
    expect(res.status).to.equal(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(parallelExportsStarted()).to.equal(before + 1);
    expect(body.equals(Buffer.from(expectedCsv(), 'utf8'))).to.equal(true);
  });

  it('filters the same way on two threads as on one (sorting by the rowid column takes the one-thread path)', async () => {
    for (const query of ['?q=comma', '?f.flag=true', '?q=%C3%BC&f.flag=false']) {
      const before = parallelExportsStarted();
      const two = await (await fetch(url(query))).text();
      expect(parallelExportsStarted(), query).to.equal(before + 1);
      const one = await (await fetch(url(`${query}&sort=id`))).text();
      expect(parallelExportsStarted(), `${query}&sort=id`).to.equal(before + 1);
      expect(two.split('\r\n').length, query).to.be.greaterThan(100);
      expect(two, query).to.equal(one);
    }
  });

  it('runs one such export at a time: another one meanwhile is encoded on the main thread, and both are complete', async () => {
    const before = parallelExportsStarted();
    const request = http.get(url());
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    const parts: Buffer[] = [];
    response.on('data', (chunk: Buffer) => parts.push(chunk));
    response.pause();
    expect(parallelExportsStarted()).to.equal(before + 1);
    const meanwhile = await (await fetch(url())).text();
    expect(parallelExportsStarted()).to.equal(before + 1);
    const finished = new Promise((resolve) => response.once('end', resolve));
    response.resume();
    await finished;
    const expected = expectedCsv();
    expect(meanwhile).to.equal(expected);
    expect(Buffer.concat(parts).toString('utf8')).to.equal(expected);
  });

  it('goes on without the worker when the file it opens is not the one the main thread opened (swapped meanwhile)', async () => {
    const file = data.klsFile('lab.tricky');
    const db = new Database(file, { readonly: true });
    try {
      const table = findDimensionTable(db, 'tricky')!;
      const options = { order: 'asc' as const, filters: [] };
      const plan = planParallelExport(db, table, options, false);
      expect(plan).to.not.equal(null);
      const before = parallelExportsStarted();
      expect(await parallelChunks(db, file, fs.statSync(file).ino + 1, table, options, plan!)).to.equal(null);
      expect(parallelExportsStarted()).to.equal(before);
      expect(planParallelExport(db, table, options, false), 'a failed start leaves the slot free').to.not.equal(null);
    } finally {
      db.close();
    }
  });

  it('stops its worker when the client disconnects, so the next export runs on two threads again', async () => {
    const before = parallelExportsStarted();
    const request = http.get(url());
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    await new Promise((resolve) => response.once('data', resolve));
    request.destroy();
    // the slot is free again once the server has noticed the disconnect and stopped the worker
    const db = new Database(data.klsFile('lab.tricky'), { readonly: true });
    try {
      const table = findDimensionTable(db, 'tricky')!;
      await until(() => planParallelExport(db, table, { order: 'asc', filters: [] }, false) !== null, { what: 'the parallel export slot to be free' });
    } finally {
      db.close();
    }
    const res = await fetch(url());
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(expectedCsv(), 'utf8'))).to.equal(true);
    expect(parallelExportsStarted()).to.equal(before + 2);
  });
});
