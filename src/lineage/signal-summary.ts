import fs from 'node:fs/promises';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { parse } from 'yaml';
import { columnsOf, hasTable } from '../search/kls-schema.js';
import { localizedText, optionalLocalizedText, type LocalizedText } from '../search/localized.js';

/** Name and description of a signal (the contract's SignalSummary). */
export interface SignalSummary {
  probe_id: string;
  name: LocalizedText;
  description: LocalizedText | null;
}

/** Definition IDs; the prefix names the AFS folder. Checked before an ID reaches a path. */
const DEFINITION_ID = /^(probe_|assessment_|hyp_|diag_)[a-z][a-z0-9_]*$/;
const FOLDER_BY_PREFIX: Readonly<Record<string, string>> = { probe_: 'signals', assessment_: 'perspectives', hyp_: 'theses', diag_: 'verdicts' };

/** The signal's name and description from the KLS (`search_items` kind `probe`), else its AFS file; null when neither has it. */
export async function findSignalSummary(db: Database.Database, afsDir: string, probeId: string): Promise<SignalSummary | null> {
  return readKlsSignal(db, probeId) ?? (await readAfsSignal(afsDir, probeId));
}

/** From `search_items` kind `probe`. */
export function readKlsSignal(db: Database.Database, probeId: string): SignalSummary | null {
  if (!hasTable(db, 'search_items')) return null;
  const present = new Set(columnsOf(db, 'search_items'));
  if (!present.has('kind') || !present.has('item_id')) return null;
  const columns = ['name_en', 'name_de', 'name_fr', 'description_en', 'description_de', 'description_fr'];
  const select = columns.map((column) => (present.has(column) ? `"${column}"` : `NULL AS ${column}`)).join(', ');
  const row = db.prepare(`SELECT ${select} FROM search_items WHERE kind = 'probe' AND item_id = ? LIMIT 1`).get(probeId) as
    | Record<string, unknown>
    | undefined;
  if (row === undefined) return null;
  return {
    probe_id: probeId,
    name: localizedText(row['name_en'], row['name_de'], row['name_fr'], probeId),
    description: optionalLocalizedText(row['description_en'], row['description_de'], row['description_fr']),
  };
}

/** From `<afsDir>/<folder>/<probeId>.yaml`; null when the ID is malformed, the file is missing or unreadable. */
export async function readAfsSignal(afsDir: string, probeId: string): Promise<SignalSummary | null> {
  const prefix = DEFINITION_ID.exec(probeId)?.[1];
  if (prefix === undefined) return null;
  let document: unknown;
  try {
    document = parse(await fs.readFile(path.join(afsDir, FOLDER_BY_PREFIX[prefix] as string, `${probeId}.yaml`), 'utf8'));
  } catch {
    return null;
  }
  if (document === null || typeof document !== 'object') return null;
  const text = (value: unknown, language: string): unknown =>
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[language] : undefined;
  const { name, description } = document as { name?: unknown; description?: unknown };
  return {
    probe_id: probeId,
    name: localizedText(text(name, 'en'), text(name, 'de'), text(name, 'fr'), probeId),
    description: optionalLocalizedText(text(description, 'en'), text(description, 'de'), text(description, 'fr')),
  };
}
