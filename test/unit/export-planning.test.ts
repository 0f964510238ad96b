import { expect } from 'chai';
import Database from 'better-sqlite3';
import { findDimensionTable } from '../../src/dimensions/dimension-table.js';
import { countRowsUpTo, rowCeiling, rowidPages, rowidRange } from '../../src/dimensions/export-connection.js';
import { exportPageSelect } from '../../src/dimensions/export-sql.js';
import type { ExportOptions } from '../../src/dimensions/export-options.js';

// What an export learns about a table before it reads it: a row ceiling for the truncation check, without counting
// a large table's rows.
const ROWS = 20_000;
describe('export planning', () => {
  let db: Database.Database;
  const table = (entity: string) => findDimensionTable(db, entity)!;

  before(() => {
    db = new Database(':memory:');
    db.exec('CREATE TABLE dimensions (entity TEXT PRIMARY KEY, table_name TEXT)');
    const tables: Record<string, string> = {
      dense: 'id INTEGER PRIMARY KEY, name TEXT',
      gappy: 'id INTEGER PRIMARY KEY, name TEXT',
      wide: 'id INTEGER PRIMARY KEY, name TEXT',
      few: 'id INTEGER PRIMARY KEY, name TEXT',
      keyed: 'code TEXT PRIMARY KEY, name TEXT) WITHOUT ROWID; SELECT (1',
      shadow: 'rowid INTEGER, name TEXT',
      empty: 'id INTEGER PRIMARY KEY, name TEXT',
      sparse: 'id INTEGER PRIMARY KEY, name TEXT',
    };
    for (const [entity, columns] of Object.entries(tables)) {
      db.exec(`CREATE TABLE dim_${entity} (${columns})`);
      db.prepare('INSERT INTO dimensions VALUES (?, ?)').run(entity, `dim_${entity}`);
    }
    const insert = (name: string, ids: Iterable<number>) => {
      const statement = db.prepare(`INSERT INTO dim_${name} VALUES (?, 'x')`);
      db.transaction(() => {
        for (const id of ids) statement.run(name === 'keyed' ? `k${id}` : id);
      })();
    };
    const range = (from: number, count: number, step = 1) => Array.from({ length: count }, (_, i) => from + i * step);
    insert('dense', range(1, ROWS + 100));
    insert('gappy', range(-5000, ROWS + 100, 3));
    insert('wide', [...range(1, ROWS + 100), 10_000_000]);
    insert('few', range(1, 200, 150));
    insert('keyed', range(1, 300));
    insert('shadow', range(1, 300, 2));
    // far apart: a page per missing rowid would never end; an index whose order is not the rowids'
    db.prepare("INSERT INTO dim_sparse VALUES (?, ?)").run(-(2n ** 63n), 'b');
    db.prepare("INSERT INTO dim_sparse VALUES (?, ?)").run(-(2n ** 62n), 'b');
    for (const id of [...range(1, 3000), 9_000_000_000]) db.prepare('INSERT INTO dim_sparse VALUES (?, ?)').run(id, id % 3 === 0 ? 'a' : `z${id}`);
    db.prepare("INSERT INTO dim_sparse VALUES (?, ?)").run(2n ** 62n, 'a');
    db.prepare("INSERT INTO dim_sparse VALUES (?, ?)").run(2n ** 63n - 1n, 'a');
    db.exec('CREATE INDEX dim_sparse_name ON dim_sparse (name)');
  });
  after(() => db.close());

  it('bounds the rows from above by the rowid span, and counts where there is no rowid to go by', () => {
    expect(rowCeiling(db, table('dense'))).to.equal(ROWS + 100);
    expect(rowCeiling(db, table('gappy'))).to.equal(3 * (ROWS + 100) - 2);
    expect(rowCeiling(db, table('few'))).to.equal(199 * 150 + 1);
    expect(rowCeiling(db, table('keyed')), 'WITHOUT ROWID').to.equal(300);
    expect(rowCeiling(db, table('shadow')), 'a column named rowid').to.equal(300);
    expect(rowCeiling(db, table('empty'))).to.equal(0);
    expect(rowidRange(db, table('gappy'))).to.deep.equal({ lo: -5000n, hi: BigInt(-5000 + 3 * (ROWS + 99)) });
    expect(rowidRange(db, table('empty'))).to.equal(null);
  });

  it('reads an unsorted export a page of rowids at a time: every matching row in rowid order, across any gap', () => {
    const cases: [string, Partial<ExportOptions>, string][] = [
      ['sparse', {}, ''],
      ['sparse', { filters: [{ column: table('sparse').columns[1]!, value: 'a' }] }, "WHERE name = 'a'"],
      ['sparse', { q: 'z29' }, "WHERE name LIKE '%z29%'"],
      ['gappy', {}, ''],
      ['empty', {}, ''],
      ['dense', { q: 'nothing' }, "WHERE name LIKE '%nothing%'"],
    ];
    for (const [entity, options, where] of cases) {
      const dimension = table(entity);
      const page = exportPageSelect(dimension, { order: 'asc', filters: [], ...options });
      const read = [...{ [Symbol.iterator]: () => rowidPages(db, dimension, page) }];
      const expected = db.prepare(`SELECT * FROM dim_${entity} ${where} ORDER BY rowid`).raw(true).safeIntegers(true).all();
      expect(read, `${entity} ${where}`).to.deep.equal(expected);
      if (entity === 'sparse' && where === '') expect(read.length).to.equal(3005);
    }
    expect(db.prepare("SELECT count(*) FROM dim_sparse WHERE name = 'a'").pluck().get()).to.equal(1003);
  });

  it('counts no further than it is asked to', () => {
    expect(countRowsUpTo(db, table('dense'), 500)).to.equal(500);
    expect(countRowsUpTo(db, table('few'), 500)).to.equal(200);
  });

});
