import type Database from 'better-sqlite3';

/** Whether the KLS has a table (or view) of that name, per `sqlite_master`. */
export function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?").get(name) !== undefined;
}

/** Column names of a table, from `pragma_table_info` (empty when the table does not exist). */
export function columnsOf(db: Database.Database, table: string): string[] {
  return (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((row) => row.name);
}

/** Double-quotes an identifier that came from `sqlite_master` or `pragma_table_info` (never from request text). */
export const quoteIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Whether a table has a rowid (it was not declared WITHOUT ROWID and is not a view). */
export function hasRowid(db: Database.Database, table: string): boolean {
  const row = db.prepare("SELECT type, sql FROM sqlite_master WHERE name = ?").get(table) as { type: string; sql: string | null } | undefined;
  return row !== undefined && row.type === 'table' && !/without\s+rowid/i.test(row.sql ?? '');
}
