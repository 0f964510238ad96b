import Database from 'better-sqlite3';
import { quoteIdentifier, type DimensionTable } from './dimension-table.js';
import { FOLD_FUNCTION } from './export-sql.js';

/** Page cache of an export connection, in KiB: an export reads each page once, so better-sqlite3's default
 * 16 MB cache would only add to the peak RSS. */
const EXPORT_CACHE_KIB = 2048;

/**
 * A read-only connection to a tenant file for one export (main thread and export worker alike): small page
 * cache, and the fold function `q` uses for non-ASCII text.
 */
export function openExportConnection(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  db.pragma(`cache_size = -${EXPORT_CACHE_KIB}`);
  db.function(FOLD_FUNCTION, { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  return db;
}

/** Rows in the table (count(*) without WHERE reads the b-tree only); asked once per export. */
export function countRows(db: Database.Database, table: DimensionTable): number {
  return db.prepare(`SELECT count(*) FROM ${quoteIdentifier(table.tableName)}`).pluck().get() as number;
}
