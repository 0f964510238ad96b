import { expect } from 'chai';
import path from 'node:path';
import { initializeAppDatabase } from '../../src/appdb/app-database.js';
import type { CopyConnection } from '../../src/appdb/copy/connection.js';
import { CopyFailure } from '../../src/appdb/copy/failures.js';
import { openPostgresCopyConnection } from '../../src/appdb/copy/postgres-connection.js';
import { canonicalRow, columnKind, TableDigest, type TableShape } from '../../src/appdb/copy/rows.js';
import { tableShapes } from '../../src/appdb/copy/schema.js';
import { openSqliteCopyConnection } from '../../src/appdb/copy/sqlite-connection.js';
import { COPIED_TABLES, TABLES_NOT_COPIED, quoted } from '../../src/appdb/copy/tables.js';
import { LimitStore } from '../../src/auth/limit-store.js';
import { parseAppDbUrl } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';

const log = createLogger('silent');

/** The tables an app database made by the migrations holds, each in the copy's lists or not. */
async function expectEveryTableListed(connection: CopyConnection): Promise<void> {
  const tables = await connection.tableNames();
  const listed = [...COPIED_TABLES.map((t) => t.name), ...Object.keys(TABLES_NOT_COPIED)];
  expect(tables.filter((name) => !listed.includes(name)), 'tables the copy neither copies nor names').to.deep.equal([]);
  expect(COPIED_TABLES.map((t) => t.name).filter((name) => !tables.includes(name))).to.deep.equal([]);
  // every column is of a kind the copy moves, and every table has a primary key
  expect((await tableShapes(connection, 'the database')).map((s) => s.name)).to.deep.equal(COPIED_TABLES.map((t) => t.name));
}

describe('app database copy: the tables and the canonical rows', () => {
  it('copies or names every table the migrations make on SQLite', async () => {
    const folder = tempDir('ads-appdb-tables-');
    try {
      const file = path.join(folder.dir, 'app.sqlite');
      await (await initializeAppDatabase(parseAppDbUrl('file', `sqlite:${file}`), log)).destroy();
      const connection = openSqliteCopyConnection(file, { readonly: true });
      await expectEveryTableListed(connection);
      await connection.close();
    } finally {
      folder.remove();
    }
  });

  it('copies or names every table the migrations and the shared limits make on PostgreSQL', async () => {
    const url = await (await sharedPostgres()).createDatabase('tables');
    await (await initializeAppDatabase(parseAppDbUrl('url', url), log)).destroy();
    const limits = await LimitStore.open(url, log);
    await limits.query({ text: 'SELECT 1' });
    await limits.close();
    const connection = await openPostgresCopyConnection(url, 'test');
    try {
      expect(await connection.tableNames()).to.include.members(Object.keys(TABLES_NOT_COPIED));
      await expectEveryTableListed(connection);
    } finally {
      await connection.close();
    }
  });

  const shape: TableShape = {
    name: 'notes',
    columns: [
      { name: 'note_id', kind: 'text' },
      { name: 'revision', kind: 'integer' },
      { name: 'title', kind: 'text' },
    ],
    key: [{ name: 'note_id', kind: 'text' }],
  };

  it('writes a row alike whatever type its driver gave an integer (number, BigInt, decimal text)', () => {
    const forms = [['n1', 3, 'Ä'], ['n1', 3n, 'Ä'], ['n1', '3', 'Ä']].map((row) => canonicalRow(shape, row));
    expect(new Set(forms).size).to.equal(1);
    expect(forms[0]).to.equal('["n1","3","Ä"]');
    expect(canonicalRow(shape, ['n1', null, null])).to.equal('["n1",null,null]');
    expect(canonicalRow(shape, ['n1', 9_007_199_254_740_993n, 'x'])).to.equal('["n1","9007199254740993","x"]');
  });

  it('refuses a value that does not fit its column, naming the table, the key and the column', () => {
    expect(() => canonicalRow(shape, ['n1', 1.5, 'x'])).to.throw(CopyFailure, 'notes note_id=n1: revision holds number 1.5, not an integer');
    expect(() => canonicalRow(shape, ['n2', 1, Buffer.from('ab')])).to.throw(CopyFailure, 'notes note_id=n2: title holds a blob of 2 bytes, not text');
    expect(() => canonicalRow(shape, ['n3', 1, 7])).to.throw(CopyFailure, 'title holds number 7, not text');
  });

  it('digests rows in the order given: the same rows in another order are another checksum', () => {
    const digest = (rows: unknown[][]): string => {
      const d = new TableDigest(shape);
      for (const row of rows) d.add(row);
      return d.result().sha256;
    };
    const rows = [['a', 1, 'x'], ['b', 2, 'y']];
    expect(digest(rows)).to.equal(digest(rows.map((r) => [...r])));
    expect(digest(rows)).not.to.equal(digest([...rows].reverse()));
  });

  it('knows the column types the migrations use and no others; quotes only plain names', () => {
    expect(['varchar', 'varchar(36)', 'character varying', 'text'].map(columnKind)).to.deep.equal(['text', 'text', 'text', 'text']);
    expect(['integer', 'bigint', 'INTEGER'].map(columnKind)).to.deep.equal(['integer', 'integer', 'integer']);
    expect(['jsonb', 'timestamp with time zone', 'boolean', 'real', 'blob'].map(columnKind)).to.deep.equal([null, null, null, null, null]);
    expect(quoted('saved_views')).to.equal('"saved_views"');
    expect(() => quoted('x"; DROP TABLE cells; --')).to.throw('unexpected identifier');
  });
});
