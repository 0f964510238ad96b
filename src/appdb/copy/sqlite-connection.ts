import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { CatalogTable, CopyConnection } from './connection.js';
import type { TableShape } from './rows.js';
import { quoted } from './tables.js';

/**
 * The copy's connection to a SQLite app database file, which must exist. `readonly` opens it read-only, as a source
 * is: a server may be writing it meanwhile, and the snapshot of one read transaction over its WAL is what the copy
 * reads.
 */
export function openSqliteCopyConnection(file: string, options: { readonly: boolean }): CopyConnection {
  const db = new Database(file, { readonly: options.readonly, fileMustExist: true });
  return sqliteCopyConnection(db, file, async () => {
    if (db.open) db.close();
  });
}

/**
 * The copy's connection over an open better-sqlite3 database of `file` (the target's is the one its migrations run
 * on, so that they are part of the copy's transaction); `close` ends it.
 */
export function sqliteCopyConnection(db: Database.Database, file: string, close: () => Promise<void>): CopyConnection {
  // integers as BigInt: a number would round those past 2^53 without a word (per statement: the migrations read
  // through the same database as numbers)
  const prepare = (sql: string): Database.Statement => db.prepare(sql).safeIntegers(true);
  if (!db.readonly) db.pragma('synchronous = FULL');
  const all = (sql: string): Record<string, unknown>[] => prepare(sql).all() as Record<string, unknown>[];
  return {
    kind: 'sqlite',
    async tableNames() {
      return all(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`).map((r) => String(r['name']));
    },
    async describe(table): Promise<CatalogTable | null> {
      const info = prepare('SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid').all(table) as { name: string; type: string; pk: bigint }[];
      if (info.length === 0) return null;
      const key = info.filter((c) => c.pk > 0n).sort((a, b) => Number(a.pk - b.pk));
      return { columns: info.map((c) => ({ name: c.name, type: c.type })), key: key.map((c) => c.name) };
    },
    async query(sql) {
      return all(sql);
    },
    async count(table) {
      return Number((prepare(`SELECT COUNT(*) AS n FROM ${quoted(table)}`).get() as { n: bigint }).n);
    },
    async identity() {
      // the file itself: another path to it, a symbolic or a hard link, names the same database
      const stat = fs.statSync(file, { bigint: true });
      return `sqlite ${stat.dev}:${stat.ino}`;
    },
    async beginSnapshot() {
      // a deferred BEGIN takes its snapshot at the first read, which the caller makes at once
      db.exec('BEGIN');
    },
    async beginWrite(lockWaitMs) {
      db.pragma(`busy_timeout = ${Math.max(0, Math.round(lockWaitMs))}`);
      db.exec('BEGIN IMMEDIATE');
    },
    async lockTables() {
      // BEGIN IMMEDIATE holds off every other writer of the file already
    },
    async commit() {
      db.exec('COMMIT');
    },
    async rollback() {
      if (db.inTransaction) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // a failed ROLLBACK leaves nothing committed either: the file's journal is undone when it is next opened
        }
      }
    },
    async *rowsInKeyOrder(shape: TableShape, batchSize: number) {
      const columns = shape.columns.map((c) => quoted(c.name)).join(', ');
      const order = shape.key.map((c) => quoted(c.name)).join(', ');
      const rows = prepare(`SELECT ${columns} FROM ${quoted(shape.name)} ORDER BY ${order}`).raw(true).iterate() as IterableIterator<unknown[]>;
      let batch: unknown[][] = [];
      try {
        for (const row of rows) {
          batch.push(row);
          if (batch.length < batchSize) continue;
          yield batch;
          batch = [];
        }
        if (batch.length > 0) yield batch;
      } finally {
        rows.return?.();
      }
    },
    async deleteAll(table) {
      prepare(`DELETE FROM ${quoted(table)}`).run();
    },
    async insert(shape: TableShape, rows) {
      const columns = shape.columns.map((c) => quoted(c.name));
      const statement = prepare(`INSERT INTO ${quoted(shape.name)} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      for (const row of rows) statement.run(row as unknown[]);
    },
    async continueSequences() {
      // an INTEGER PRIMARY KEY continues after the highest rowid by itself, and AUTOINCREMENT's sqlite_sequence follows inserted ids
    },
    close,
  };
}
