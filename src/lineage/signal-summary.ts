import type Database from 'better-sqlite3';
import { columnsOf, hasTable } from '../search/kls-schema.js';
import { localizedText, optionalLocalizedText, type LocalizedText } from '../search/localized.js';
import type { AfsDefinitions } from '../signals/afs-store.js';

/** Name and description of a signal (the contract's SignalSummary). */
export interface SignalSummary {
  probe_id: string;
  name: LocalizedText;
  description: LocalizedText | null;
}

/** The signal's name and description from the KLS (`search_items` kind `probe`), else its AFS file; null when neither has it. */
export async function findSignalSummary(db: Database.Database, definitions: Pick<AfsDefinitions, 'read'>, probeId: string): Promise<SignalSummary | null> {
  return readKlsSignal(db, probeId) ?? (await readAfsSignal(definitions, probeId));
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

/**
 * From `<afsDir>/<folder>/<probeId>.yaml` as `definitions` reads it (parsed off the main thread, symbolic links not
 * followed); null when the ID is malformed, the file is missing, a link, or cannot be read within the limits.
 */
export async function readAfsSignal(definitions: Pick<AfsDefinitions, 'read'>, probeId: string): Promise<SignalSummary | null> {
  const definition = await definitions.read(probeId);
  if (definition.kind === 'absent' || !definition.content.ok) return null;
  const { name, description } = definition.content;
  const text = (value: unknown, language: string): unknown =>
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[language] : undefined;
  return {
    probe_id: probeId,
    name: localizedText(text(name, 'en'), text(name, 'de'), text(name, 'fr'), probeId),
    description: optionalLocalizedText(text(description, 'en'), text(description, 'de'), text(description, 'fr')),
  };
}
