import type Database from 'better-sqlite3';
import type { GoldSchema } from './definition-rules.js';
import { hasTable } from '../search/kls-schema.js';

/** The tenant's Gold tables (registered in `gold_tables` and present in sqlite_master) and their columns; none without `gold_tables`. */
export function readGoldSchema(db: Database.Database, tenant: string): GoldSchema {
  if (!hasTable(db, 'gold_tables')) return { tenant, tables: Object.create(null) as Record<string, string[]> };
  const tables = db
    .prepare(
      `SELECT g.table_name FROM gold_tables g JOIN sqlite_master m ON m.name = g.table_name AND m.type IN ('table', 'view')
       ORDER BY g.table_name`,
    )
    .pluck()
    .all() as string[];
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck();
  const schema: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const table of tables) schema[table] = columns.all(table) as string[];
  return { tenant, tables: schema };
}

/** Tables and columns a signal contract (plain data from YAML) refers to; null when its shape cannot tell. */
export function contractReferences(contract: unknown): { source: string; columns: string[] } | null {
  if (typeof contract !== 'object' || contract === null) return null;
  const c = contract as Record<string, unknown>;
  if (typeof c['source'] !== 'string') return null;
  const columns: unknown[] = [c['entity_id'], c['time_bucket'], c['money_at_risk']];
  const conditions = [...(Array.isArray(c['where']) ? c['where'] : [])];
  for (const rule of Array.isArray(c['severity']) ? c['severity'] : []) {
    if (typeof rule === 'object' && rule !== null && 'when' in rule) conditions.push((rule as { when: unknown }).when);
  }
  for (const condition of conditions) {
    columns.push(typeof condition === 'object' && condition !== null ? (condition as { column?: unknown }).column : null);
  }
  if (Array.isArray(c['evidence'])) columns.push(...(c['evidence'] as unknown[]));
  if (c['entity_id'] === undefined || columns.some((column) => column !== undefined && typeof column !== 'string')) return null;
  return { source: c['source'], columns: [...new Set(columns.filter((column): column is string => typeof column === 'string'))] };
}

/** Whether a signal's source table and every column it uses exist in the tenant's Gold tables. */
export function isApplicable(contract: unknown, gold: GoldSchema): boolean {
  const references = contractReferences(contract);
  if (references === null || !Object.hasOwn(gold.tables, references.source)) return false;
  const columns = gold.tables[references.source] as readonly string[];
  return references.columns.every((column) => columns.includes(column));
}
