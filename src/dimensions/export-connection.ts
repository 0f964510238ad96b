import fs from 'node:fs';
import Database from 'better-sqlite3';
import { quoteIdentifier, rowidAddressable, type DimensionTable } from './dimension-table.js';
import { FOLD_FUNCTION, type SqlStatement } from './export-sql.js';

/** Page cache of an export connection, in KiB: an export reads each page once, so better-sqlite3's default
 * 16 MB cache would only add to the peak RSS. */
const EXPORT_CACHE_KIB = 2048;

/**
 * A read-only connection to a tenant file for one export (on a reader thread, and on the main thread for the
 * catalogue reads before it): small page cache, and the fold function `q` uses for non-ASCII text.
 */
export function openExportConnection(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
  db.pragma(`cache_size = -${EXPORT_CACHE_KIB}`);
  db.function(FOLD_FUNCTION, { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  return db;
}

/**
 * The smallest and largest rowid of a rowid-addressable table, null when it is empty. Two statements, because
 * SQLite answers a lone min() or max() of the rowid with one b-tree seek but scans the table for both at once.
 */
export function rowidRange(db: Database.Database, table: DimensionTable): { lo: bigint; hi: bigint } | null {
  const name = quoteIdentifier(table.tableName);
  const lo = db.prepare(`SELECT min(rowid) FROM ${name}`).pluck().safeIntegers(true).get() as bigint | null;
  const hi = db.prepare(`SELECT max(rowid) FROM ${name}`).pluck().safeIntegers(true).get() as bigint | null;
  return lo === null || hi === null ? null : { lo, hi };
}

/**
 * At least as many as the rows in the table, read without scanning it where possible: for a rowid-addressable
 * table the rowid span (rowids are unique), else count(*) (which reads the whole b-tree: ~140 ms for a million
 * rows). An export needs no more than "not above the cap".
 */
export function rowCeiling(db: Database.Database, table: DimensionTable): number {
  if (!rowidAddressable(table)) return db.prepare(`SELECT count(*) FROM ${quoteIdentifier(table.tableName)}`).pluck().get() as number;
  const range = rowidRange(db, table);
  if (range === null) return 0;
  const span = range.hi - range.lo + 1n;
  return span > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(span);
}

/**
 * Rowids per page of rowidPages: few enough that a page is seldom still in use when the reader's young generation is
 * collected (a page that survives is promoted, and 1,024 rowids grew the RSS by half as much again), many enough that
 * the call into SQLite is paid once per page (decision 9).
 */
const PAGE_ROWIDS = 256n;

/**
 * The rows of `page` (exportPageSelect) as one iterator, read a page of PAGE_ROWIDS rowids at a time with `all`.
 * better-sqlite3 crosses from JavaScript into SQLite once per row of an `iterate` and once per page of an `all`;
 * on narrow rows that crossing cost more than the values themselves. A page that finds no row skips the gap to
 * the next rowid there is, so sparse rowids cost a seek per page that holds one, not a read per missing rowid.
 */
export function rowidPages(db: Database.Database, table: DimensionTable, page: SqlStatement): Iterator<unknown[]> {
  const range = rowidRange(db, table);
  const statement = db.prepare(page.sql).raw(true).safeIntegers(true);
  const nextRowid = db.prepare(`SELECT min(rowid) FROM ${quoteIdentifier(table.tableName)} WHERE rowid >= ?`).pluck().safeIntegers(true);
  const hi = range?.hi ?? 0n;
  let lo = range?.lo ?? null;
  let rows: unknown[][] = [];
  let at = 0;
  return {
    next(): IteratorResult<unknown[]> {
      while (at === rows.length) {
        if (lo === null) return { done: true, value: undefined };
        // inclusive bounds: the last page may end at the largest rowid SQLite has (2^63 - 1), which no bound passes
        const last = hi - lo < PAGE_ROWIDS ? hi : lo + PAGE_ROWIDS - 1n;
        rows = statement.all(...page.params, lo, last) as unknown[][];
        at = 0;
        lo = last === hi ? null : rows.length > 0 ? last + 1n : (nextRowid.get(last + 1n) as bigint | null);
      }
      return { done: false, value: rows[at++]! };
    },
    return(): IteratorResult<unknown[]> {
      lo = null;
      rows = [];
      at = 0;
      return { done: true, value: undefined };
    },
  };
}

/** The rows in the table, but at most `limit`: reads no more than `limit` rows. */
export function countRowsUpTo(db: Database.Database, table: DimensionTable, limit: number): number {
  return db.prepare(`SELECT count(*) FROM (SELECT 1 FROM ${quoteIdentifier(table.tableName)} LIMIT ?)`).pluck().get(limit) as number;
}

/**
 * The inode of `file`, null when there is none. An export reads the table on the main thread and its rows on a
 * reader: both must be the same file, and a tenant file is replaced by renaming another over it.
 */
export function inodeOf(file: string): number | null {
  try {
    return fs.statSync(file).ino;
  } catch {
    return null;
  }
}
