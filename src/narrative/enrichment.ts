import type Database from 'better-sqlite3';
import type { AfsDefinitions } from '../signals/afs-store.js';

/** A text in the three languages; any of them may be missing. */
export interface LocalizedText {
  en: string | null;
  de: string | null;
  fr: string | null;
}

/** Name and description of the signal behind a finding, and where they came from. */
export interface SignalInfo {
  probeId: string;
  name: LocalizedText;
  description: LocalizedText | null;
  source: 'kls' | 'afs';
}

/** A few Gold rows of the finding's entity from one registered Gold table. */
export interface EntityRecords {
  table: string;
  label: LocalizedText;
  rows: Record<string, string | number | null>[];
}

/** The subject of a narrative: which entity, and which month to prefer. */
export interface EntitySubject {
  entityType: string;
  entityId: string;
  timeBucket: string | null;
}

/** Gold tables read per narrative, rows per table, columns per row, characters per value: a small prompt. */
export const ENRICHMENT_LIMITS = { tables: 4, rows: 3, columns: 16, chars: 120 } as const;

interface RegistryRow {
  table_name: unknown;
  entity_column: unknown;
  time_column: unknown;
  label_en: unknown;
  label_de: unknown;
  label_fr: unknown;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
const quoteIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * The entity's attributes: rows of the Gold tables that `gold_tables` registers for its entity type, matched on
 * the registered entity column (rows of the finding's month first). Table and column names come from the
 * registry and are used only when `sqlite_master` / `table_info` confirm them; the entity id is a bound value.
 */
export function readEntityRecords(db: Database.Database, subject: EntitySubject): EntityRecords[] {
  if (!tableExists(db, 'gold_tables')) return [];
  const registry = db
    .prepare('SELECT table_name, entity_column, time_column, label_en, label_de, label_fr FROM gold_tables WHERE entity_type = ? ORDER BY table_name')
    .all(subject.entityType) as RegistryRow[];
  const groups: EntityRecords[] = [];
  for (const entry of registry) {
    if (groups.length >= ENRICHMENT_LIMITS.tables) break;
    const table = text(entry.table_name);
    const entityColumn = text(entry.entity_column);
    if (table === null || entityColumn === null || !tableExists(db, table)) continue;
    const columns = columnsOf(db, table);
    if (!columns.includes(entityColumn)) continue;
    const timeColumn = text(entry.time_column);
    const preferMonth = subject.timeBucket !== null && timeColumn !== null && columns.includes(timeColumn);
    const order = preferMonth ? ` ORDER BY (substr(${quoteIdentifier(timeColumn)}, 1, 7) = ?) DESC` : '';
    const sql = `SELECT * FROM ${quoteIdentifier(table)} WHERE ${quoteIdentifier(entityColumn)} = ?${order} LIMIT ${ENRICHMENT_LIMITS.rows}`;
    const rows = (preferMonth ? db.prepare(sql).all(subject.entityId, subject.timeBucket) : db.prepare(sql).all(subject.entityId)) as Record<string, unknown>[];
    if (rows.length === 0) continue;
    groups.push({
      table,
      label: { en: text(entry.label_en), de: text(entry.label_de), fr: text(entry.label_fr) },
      rows: rows.map(toPromptRow),
    });
  }
  return groups;
}

function toPromptRow(row: Record<string, unknown>): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [column, value] of Object.entries(row).slice(0, ENRICHMENT_LIMITS.columns)) {
    if (typeof value === 'number' || value === null) out[column] = value;
    else if (typeof value === 'bigint') out[column] = Number(value);
    else if (typeof value === 'string') out[column] = value.length > ENRICHMENT_LIMITS.chars ? `${value.slice(0, ENRICHMENT_LIMITS.chars)}…` : value;
    // BLOBs say nothing to a reader: left out.
  }
  return out;
}

function tableExists(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?").get(name) !== undefined;
}

function columnsOf(db: Database.Database, table: string): string[] {
  return (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((c) => c.name);
}

/** The signal's name and description from the tenant's `search_items` (kind `probe`); null when absent. */
export function readSignalFromKls(db: Database.Database, probeId: string): SignalInfo | null {
  if (!tableExists(db, 'search_items')) return null;
  const row = db
    .prepare("SELECT name_en, name_de, name_fr, description_en, description_de, description_fr FROM search_items WHERE kind = 'probe' AND item_id = ?")
    .get(probeId) as Record<string, unknown> | undefined;
  if (row === undefined) return null;
  const name = { en: text(row.name_en), de: text(row.name_de), fr: text(row.name_fr) };
  const description = { en: text(row.description_en), de: text(row.description_de), fr: text(row.description_fr) };
  return { probeId, name, description: hasAny(description) ? description : null, source: 'kls' };
}

/**
 * The signal's name and description from its AFS definition file as `definitions` reads it (parsed off the main thread,
 * symbolic links not followed); null when there is none, it does not parse within the limits, or it has no name.
 */
export async function readSignalFromAfs(definitions: Pick<AfsDefinitions, 'read'>, probeId: string): Promise<SignalInfo | null> {
  const definition = await definitions.read(probeId);
  if (definition.kind === 'absent' || !definition.content.ok) return null;
  const name = localized(definition.content.name);
  if (name === null) return null;
  return { probeId, name, description: localized(definition.content.description), source: 'afs' };
}

function localized(value: unknown): LocalizedText | null {
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const result = { en: text(v.en), de: text(v.de), fr: text(v.fr) };
  return hasAny(result) ? result : null;
}

const hasAny = (value: LocalizedText): boolean => value.en !== null || value.de !== null || value.fr !== null;
