import { expect } from 'chai';
import http from 'node:http';
import Database from 'better-sqlite3';
import { csvRecord } from '../../src/dimensions/csv.js';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { findDimensionTable } from '../../src/dimensions/dimension-table.js';
import { ExportNotStarted, exportOnReaders } from '../../src/dimensions/reader-export.js';
import { MainThreadReaders } from '../../src/reader-threads/main-thread.js';
import { ReaderPool } from '../../src/reader-threads/pool.js';
import { dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// An export's bytes, on a reader thread or, with READER_THREADS=off, on the main thread, over every kind of value a
// dimension column holds: these tests hold them to what csvRecord writes row by row, byte for byte, and check what
// the reader does with the job when the client pauses, goes away, or the file was swapped.
const ROWS = 32_768;
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
      raw: id % 7 === 0 ? Buffer.from([0xca, 0xfe, id % 256]) : null,
    });
  }
  return rows;
}

for (const setting of ['on', 'off'] as const) describe(`dimension export on its readers, READER_THREADS=${setting}`, function () {
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
    server = await startTestServer({ dataDir: data.dir, env: { READER_THREADS: setting } });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  /** What csvRecord writes for the whole table, row by row in rowid order. */
  function expectedCsv(): string {
    const db = new Database(data.klsFile('lab.tricky'), { readonly: true });
    try {
      const rows = db.prepare('SELECT * FROM dim_tricky ORDER BY rowid').raw(true).safeIntegers(true).all() as unknown[][];
      return csvRecord(['id', 'name', 'price', 'qty', 'flag', 'raw']) + rows.map(csvRecord).join('');
    } finally {
      db.close();
    }
  }

  it('writes what csvRecord writes row by row, byte for byte', async () => {
    const res = await fetch(url());
    expect(res.status).to.equal(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(Buffer.from(expectedCsv(), 'utf8'))).to.equal(true);
  });

  it('filters unsorted as sorted by the rowid column, which is table order', async () => {
    for (const query of ['?q=comma', '?f.flag=true', '?q=%C3%BC&f.flag=false']) {
      const unsorted = await (await fetch(url(query))).text();
      const sorted = await (await fetch(url(`${query}&sort=id`))).text();
      expect(unsorted.split('\r\n').length, query).to.be.greaterThan(100);
      expect(unsorted, query).to.equal(sorted);
    }
  });

  it('streams two exports at once, one of them paused by its client, and both are complete', async () => {
    const request = http.get(url());
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    const parts: Buffer[] = [];
    response.on('data', (chunk: Buffer) => parts.push(chunk));
    response.pause();
    const meanwhile = await (await fetch(url())).text();
    const finished = new Promise((resolve) => response.once('end', resolve));
    response.resume();
    await finished;
    const expected = expectedCsv();
    expect(meanwhile).to.equal(expected);
    expect(Buffer.concat(parts).toString('utf8')).to.equal(expected);
  });

  it('sends the same bytes compressed to a client that pauses, once decompressed', async () => {
    for (const coding of ['br', 'gzip'] as const) {
      const request = http.get(url(), { headers: { 'accept-encoding': coding } });
      const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
      expect(response.headers['content-encoding']).to.equal(coding);
      const parts: Buffer[] = [];
      response.on('data', (chunk: Buffer) => parts.push(chunk));
      response.pause();
      // another export runs to its end meanwhile, with the paused one's chunks waiting for its client
      expect(await (await fetch(url())).text()).to.equal(expectedCsv());
      const finished = new Promise((resolve) => response.once('end', resolve));
      response.resume();
      await finished;
      const body = Buffer.concat(parts);
      const decompressed = coding === 'br' ? zlib.brotliDecompressSync(body) : zlib.gunzipSync(body);
      expect(decompressed.equals(Buffer.from(expectedCsv(), 'utf8')), coding).to.equal(true);
    }
  });

  it('reads nothing when the file the reader opens is not the one the table was read from (swapped meanwhile)', async () => {
    const file = data.klsFile('lab.tricky');
    const db = new Database(file, { readonly: true });
    const table = findDimensionTable(db, 'tricky')!;
    db.close();
    const started = exportOnReaders(server.deps.readers, { file, inode: fs.statSync(file).ino + 1, table, options: { order: 'asc', filters: [] }, cap: 1_000_000 });
    const failure = await started.then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(ExportNotStarted);
    expect((failure as ExportNotStarted).replaced).to.equal(true);
    expect(server.deps.readers.jobCount).to.equal(0);
  });

  it('cancels its job when the client disconnects: the reader lets go of the file', async () => {
    const request = http.get(url());
    const response = await new Promise<http.IncomingMessage>((resolve) => request.once('response', resolve));
    await new Promise((resolve) => response.once('data', resolve));
    expect(server.deps.readers.jobCount).to.equal(1);
    request.destroy();
    await server.deps.readers.settled(); // the job's final reply: the reader let go of the file
    expect(server.deps.readers.jobCount).to.equal(0);
    const res = await fetch(url());
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(expectedCsv(), 'utf8'))).to.equal(true);
  });

  it(setting === 'on' ? 'reads on the reader threads' : 'reads on the main thread and starts no reader thread', () => {
    if (setting === 'on') {
      expect(server.deps.readers).to.be.instanceOf(ReaderPool);
      expect((server.deps.readers as ReaderPool).started, 'threads started by the exports above').to.be.greaterThan(0);
    } else {
      expect(server.deps.readers).to.be.instanceOf(MainThreadReaders);
    }
  });
});
