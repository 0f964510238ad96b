import type Database from 'better-sqlite3';

/** SQLite column affinity (https://www.sqlite.org/datatype3.html, section 3.1), decided from the declared type. */
export type Affinity = 'integer' | 'text' | 'blob' | 'real' | 'numeric';

/** One column of a dimension table, as `sqlite_master` / `pragma_table_info` describe it. */
export interface DimensionColumn {
  readonly name: string;
  readonly affinity: Affinity;
}

/** A dimension table found through the `dimensions` registry and checked against `sqlite_master`. */
export interface DimensionTable {
  readonly entity: string;
  /** The table name exactly as `sqlite_master` spells it (never request text). */
  readonly tableName: string;
  /** Columns in table order. */
  readonly columns: readonly DimensionColumn[];
  /** True for an ordinary rowid table (a stable tie-breaker when sorting). */
  readonly hasRowid: boolean;
}

/** The affinity SQLite gives a column declared with `declaredType`. */
export function affinityOf(declaredType: string): Affinity {
  const type = declaredType.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'text';
  if (type === '' || type.includes('BLOB')) return 'blob';
  if (type.includes('REAL') || type.includes('FLOA') || type.includes('DOUB')) return 'real';
  return 'numeric';
}

/** True for a rowid table none of whose columns is named `rowid` (such a column would shadow it). */
export const rowidAddressable = (table: DimensionTable): boolean => table.hasRowid && !table.columns.some((c) => c.name.toLowerCase() === 'rowid');

/** Double-quotes an identifier taken from sqlite_master (inner quotes doubled). */
export const quoteIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * The table registered for `entity` in `dimensions`, or null when the entity is not registered or its table
 * does not exist. Table and column names come from `sqlite_master` and `pragma_table_info`.
 */
export function findDimensionTable(db: Database.Database, entity: string): DimensionTable | null {
  const registry = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dimensions'").get();
  if (registry === undefined) return null;
  const registered = db.prepare('SELECT table_name FROM dimensions WHERE entity = ?').get(entity) as { table_name: unknown } | undefined;
  if (typeof registered?.table_name !== 'string') return null;
  const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get(registered.table_name) as { name: string } | undefined;
  if (table === undefined) return null;
  const columns = (db.prepare('SELECT name, type FROM pragma_table_info(?) ORDER BY cid').all(table.name) as { name: string; type: string }[]).map(
    (column) => ({ name: column.name, affinity: affinityOf(column.type ?? '') }),
  );
  if (columns.length === 0) return null;
  const listing = db.prepare("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?").get(table.name) as { wr: number } | undefined;
  return { entity, tableName: table.name, columns, hasRowid: listing?.wr === 0 };
}
