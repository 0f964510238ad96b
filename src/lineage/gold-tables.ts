import type Database from 'better-sqlite3';
import { columnsOf, hasTable } from '../search/kls-schema.js';
import { localizedText, type LocalizedText } from '../search/localized.js';

/** A Gold table as registered in `gold_tables`, checked against `sqlite_master`. */
export interface GoldTable {
  table: string;
  entityType: string | null;
  entityColumn: string;
  /** Null when the registry names none, or names a column the table does not have. */
  timeColumn: string | null;
  label: LocalizedText;
}

interface RegistryRow {
  table_name: unknown;
  entity_type: unknown;
  entity_column: unknown;
  time_column: unknown;
  label_en: unknown;
  label_de: unknown;
  label_fr: unknown;
}

const REGISTRY_COLUMNS = ['table_name', 'entity_type', 'entity_column', 'time_column', 'label_en', 'label_de', 'label_fr'] as const;

/**
 * The Gold tables of the registry (of `entityType` when given), ordered by table name. Entries whose table
 * or entity column does not exist in the file are left out: names used in SQL come only from here.
 */
export function registeredGoldTables(db: Database.Database, entityType: string | null): GoldTable[] {
  if (!hasTable(db, 'gold_tables')) return [];
  const present = new Set(columnsOf(db, 'gold_tables'));
  if (!present.has('table_name') || !present.has('entity_column')) return [];
  const select = REGISTRY_COLUMNS.map((column) => (present.has(column) ? `"${column}"` : `NULL AS ${column}`)).join(', ');
  const rows = db.prepare(`SELECT ${select} FROM gold_tables`).all() as RegistryRow[];
  const tables: GoldTable[] = [];
  for (const row of rows) {
    if (typeof row.table_name !== 'string' || typeof row.entity_column !== 'string') continue;
    const rowType = typeof row.entity_type === 'string' ? row.entity_type : null;
    if (entityType !== null && rowType !== entityType) continue;
    if (!hasTable(db, row.table_name)) continue;
    const columns = new Set(columnsOf(db, row.table_name));
    if (!columns.has(row.entity_column)) continue;
    const timeColumn = typeof row.time_column === 'string' && columns.has(row.time_column) ? row.time_column : null;
    tables.push({
      table: row.table_name,
      entityType: rowType,
      entityColumn: row.entity_column,
      timeColumn,
      label: localizedText(row.label_en, row.label_de, row.label_fr, row.table_name),
    });
  }
  return tables.sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
}
