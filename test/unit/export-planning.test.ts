import { expect } from 'chai';
import Database from 'better-sqlite3';
import { findDimensionTable } from '../../src/dimensions/dimension-table.js';
import { countRowsUpTo, rowCeiling, rowidRange } from '../../src/dimensions/export-connection.js';

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

  it('counts no further than it is asked to', () => {
    expect(countRowsUpTo(db, table('dense'), 500)).to.equal(500);
    expect(countRowsUpTo(db, table('few'), 500)).to.equal(200);
  });

});
