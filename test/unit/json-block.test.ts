import { expect } from 'chai';
import Database from 'better-sqlite3';
import { CHUNK_BUFFER_BYTES } from '../../src/dimensions/csv-chunks.js';
import { csvRecord } from '../../src/dimensions/csv.js';
import { findDimensionTable } from '../../src/dimensions/dimension-table.js';
import { filterConditions } from '../../src/dimensions/export-sql.js';
import { BlockEncoder, blockSql, prepareBlockStatements, rowidsAscend, type BlockStatements } from '../../src/dimensions/json-block.js';

/** A small deterministic generator (mulberry32), so that a failure can be repeated. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TEXTS = ['plain', 'with, comma', 'say "hi"', 'back\\slash', 'line\nbreak', 'cr\rx', 'tab\tin', '\ttab first', '=SUM(A1)', '-10%', '+41 44', '@Lager', "'quoted", 'Ünïcödé ß', 'emoji 🏥', 'nul\u0000inside', 'ctrl\u0001\u001f', 'del\u007f', 'sep\u2028\u2029', '', ' ', '=', ',', '"', 'null', '123', '-0.0'];

describe('dimension export blocks from JSON lines', () => {
  let db: Database.Database;
  const rows: unknown[][] = [];

  before(() => {
    db = new Database(':memory:');
    db.exec('CREATE TABLE dimensions (entity TEXT PRIMARY KEY, table_name TEXT)');
    db.exec("INSERT INTO dimensions VALUES ('t', 'dim_t'), ('b', 'dim_b')");
    db.exec('CREATE TABLE dim_t (id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, anything, ratio REAL)');
    const next = random(42);
    const doubles = [0, -0, 0.1 + 0.2, 2450, 1e21, 1e20 + 16384, 123456789012345680000, -3.25, 5e-324, 1.7976931348623157e308, Infinity, -Infinity, 1e-7, 123.00000000000001, 9007199254740993, 0.000001];
    const insert = db.prepare('INSERT INTO dim_t VALUES (?, ?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (let id = 1; id <= 6000; id += 1) {
        const bits = new DataView(new ArrayBuffer(8));
        bits.setUint32(0, Math.floor(next() * 2 ** 32));
        bits.setUint32(4, Math.floor(next() * 2 ** 32));
        const wild = bits.getFloat64(0);
        const price = id % 3 === 0 ? (Number.isNaN(wild) ? null : wild) : id % 3 === 1 ? doubles[id % doubles.length]! : Math.round(next() * 1e6) / 100;
        const name = id % 5 === 0 ? TEXTS.map((t) => t.slice(0, 1 + Math.floor(next() * 4))).join('') : TEXTS[id % TEXTS.length]!;
        const qty = id % 4 === 0 ? 9223372036854775807n : id % 4 === 1 ? -9223372036854775808n : BigInt(Math.floor(next() * 1000) - 500);
        // a column without a type holds whatever it is given
        const anything = [null, 'text, too', 7, 2.5, 1e300, '=1+1'][id % 6];
        // decimals of 1 to 17 significant digits from 10^-8 to 10^16, and as many digits as a double holds
        const scale = 10 ** (Math.floor(next() * 25) - 8);
        const ratio = (next() < 0.5 ? -1 : 1) * (id % 2 === 0 ? Number((next() * scale).toPrecision(1 + (id % 17))) : next() * scale);
        insert.run(id * 2, id % 11 === 0 ? null : name, price, qty, anything, ratio);
      }
    })();
    rows.push(...(db.prepare('SELECT * FROM dim_t ORDER BY rowid').raw(true).safeIntegers(true).all() as unknown[][]));
    db.exec("INSERT INTO dimensions VALUES ('one', 'dim_one')");
    db.exec('CREATE TABLE dim_one (label TEXT)');
    const one = db.prepare('INSERT INTO dim_one VALUES (?)');
    for (let id = 1; id <= 3000; id += 1) one.run(id % 7 === 0 ? `with, comma ${id}` : id % 13 === 0 ? `=${id}` : `label ${id}`);
    db.exec('CREATE TABLE dim_b (id INTEGER PRIMARY KEY, raw BLOB, note TEXT)');
    db.exec("INSERT INTO dim_b VALUES (1, x'cafe', 'a'), (2, NULL, 'b'), (3, NULL, CAST(x'ff41' AS TEXT)), (10, NULL, 'c')");
  });
  after(() => db.close());

  /** Every record of the table's blocks of `span` rowids, through chunk buffers of `size` bytes. */
  function encodeAll(entity: string, span: number, size = CHUNK_BUFFER_BYTES): { csv: Buffer; records: number; chunks: number } {
    const table = findDimensionTable(db, entity)!;
    const filter = filterConditions(table, { order: 'asc', filters: [] });
    const statements = prepareBlockStatements(db, blockSql(table, filter), filter.params);
    const target = Buffer.alloc(size);
    const parts: Buffer[] = [];
    let records = 0;
    let chunks = 0;
    for (let lo = 0; lo <= 12_000; lo += span) {
      const encoder = new BlockEncoder(statements, lo, lo + span);
      for (;;) {
        const out = encoder.encodeInto(target);
        parts.push(Buffer.from(target.subarray(0, out.used)));
        if (out.long !== null) parts.push(out.long);
        records += out.records;
        chunks += 1;
        if (out.done) break;
      }
    }
    return { csv: Buffer.concat(parts), records, chunks };
  }

  it('writes the records csvRecord writes, byte for byte: text of every kind, REALs of every size, 64-bit integers, NULL', () => {
    const expected = Buffer.from(rows.map(csvRecord).join(''), 'utf8');
    for (const span of [4096, 1000, 7]) {
      const { csv, records } = encodeAll('t', span);
      expect(records, `blocks of ${span}`).to.equal(6000);
      if (!csv.equals(expected)) {
        const a = csv.toString('utf8'), b = expected.toString('utf8');
        let k = 0;
        while (a[k] === b[k]) k += 1;
        throw new Error(`differs at ${k}: ${JSON.stringify(a.slice(k - 60, k + 40))} vs ${JSON.stringify(b.slice(k - 60, k + 40))}`);
      }
    }
  });

  it('writes a table of one text column, whose lines hold no separator', () => {
    const expected = (db.prepare('SELECT * FROM dim_one ORDER BY rowid').raw(true).all() as unknown[][]).map(csvRecord).join('');
    expect(expected).to.include('"with, comma 7"').and.include(`"'=13"`);
    expect(encodeAll('one', 4096).csv.toString('utf8')).to.equal(expected);
    expect(encodeAll('one', 5).csv.toString('utf8')).to.equal(expected);
  });

  it("reads a block again with group_concat's own ORDER BY when its lines came out of rowid order", () => {
    const table = findDimensionTable(db, 't')!;
    const filter = filterConditions(table, { order: 'asc', filters: [] });
    const sql = blockSql(table, filter);
    expect(sql.ordered).to.match(/group_concat\(rowid \|\| json_array\([^)]*\), char\(10\) ORDER BY rowid\)/);
    // a statement that answers the lines in descending order, as SQLite would be free to
    const columns = table.columns.map((c) => `"${c.name}"`).join(', ');
    const reversed = db.prepare(`SELECT CAST(group_concat(line, char(10)) AS BLOB) FROM (SELECT rowid || json_array(${columns}) AS line FROM dim_t WHERE rowid >= ? AND rowid < ? ORDER BY rowid DESC)`).pluck();
    const statements: BlockStatements = { ...prepareBlockStatements(db, sql, filter.params), json: reversed };
    const target = Buffer.alloc(CHUNK_BUFFER_BYTES);
    const parts: string[] = [];
    for (const [lo, hi] of [[0, 4096], [4096, 12_001]] as const) {
      expect(rowidsAscend(reversed.get(lo, hi) as Buffer)).to.equal(false);
      const encoder = new BlockEncoder(statements, lo, hi);
      for (let out = encoder.encodeInto(target); ; out = encoder.encodeInto(target)) {
        parts.push(target.toString('utf8', 0, out.used) + (out.long?.toString('utf8') ?? ''));
        if (out.done) break;
      }
    }
    expect(parts.join('')).to.equal(rows.map(csvRecord).join(''));
  });

  it('tells ascending rowids from any others, negative ones included', () => {
    const lines = (ids: number[]): Buffer => Buffer.from(ids.map((id) => `${id}[1,"a"]`).join('\n'));
    expect(rowidsAscend(lines([-12, -3, 0, 7, 10, 4096]))).to.equal(true);
    expect(rowidsAscend(lines([5]))).to.equal(true);
    expect(rowidsAscend(lines([1, 3, 2]))).to.equal(false);
    expect(rowidsAscend(lines([3, 3]))).to.equal(false);
    expect(rowidsAscend(lines([-3, -12]))).to.equal(false);
    expect(rowidsAscend(lines([9, 10, 100, 99]))).to.equal(false);
  });

  it('cuts a block into chunks by whole records, and sends a record too long for the room left on its own', () => {
    const expected = Buffer.from(rows.map(csvRecord).join(''), 'utf8');
    const { csv, chunks } = encodeAll('t', 4096, 2048);
    expect(chunks).to.be.greaterThan(100);
    expect(csv.equals(expected)).to.equal(true);
  });

  it('reads a block row by row where JSON cannot carry it (a BLOB, text that is not UTF-8), with the same records', () => {
    const expected = (db.prepare('SELECT * FROM dim_b ORDER BY rowid').raw(true).safeIntegers(true).all() as unknown[][]).map(csvRecord).join('');
    expect(expected).to.include('cafe').and.include('\ufffdA');
    expect(encodeAll('b', 2).csv.toString('utf8')).to.equal(expected);
    expect(encodeAll('b', 5000).csv.toString('utf8')).to.equal(expected);
  });
});
