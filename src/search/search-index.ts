import Database from 'better-sqlite3';
import { foldText } from './fold.js';
import { ftsTableOf } from './index-builder.js';
import { localizedText, optionalLocalizedText, type LocalizedText } from './localized.js';
import { PER_KIND_LIMIT, RESULT_KEY, SEARCH_KINDS, type ResultKey, type SearchKind } from './search-kinds.js';

/** One search hit as the API sends it. */
export interface SearchHit {
  id: string;
  kind: SearchKind;
  name: LocalizedText;
  description?: LocalizedText;
  meta?: Record<string, unknown>;
}

/** Hits per response array, best first. */
export type SearchResults = Record<ResultKey, SearchHit[]>;

/** Shortest query the trigram index can serve (in characters); shorter ones match name prefixes only. */
export const TRIGRAM_MIN_LENGTH = 3;

interface ItemRow {
  id: number;
  kind: SearchKind;
  item_id: string;
  name_en: string | null;
  name_de: string | null;
  name_fr: string | null;
  description_en: string | null;
  description_de: string | null;
  description_fr: string | null;
  meta: string | null;
}

/** An `items` row in raw (array) form, columns in ITEM_COLUMNS order; cheaper to read than a keyed row. */
type RawItemRow = [number, string, string | null, string | null, string | null, string | null, string | null, string | null, string | null];
const ITEM_COLUMNS = 'id, item_id, name_en, name_de, name_fr, description_en, description_de, description_fr, meta';

/** Empty results: nine empty arrays. */
export const emptyResults = (): SearchResults =>
  Object.fromEntries(SEARCH_KINDS.map((kind) => [RESULT_KEY[kind], []])) as unknown as SearchResults;

/** Largest code point: `prefix + MAX_CHARACTER` bounds the folded names that start with `prefix`. */
const MAX_CHARACTER = '\u{10FFFF}';

/** An open, read-only search sidecar of one tenant generation. */
export class SearchIndex {
  private readonly byPrefix: Database.Statement;
  private readonly bySubstring: Map<SearchKind, Database.Statement>;
  private readonly items: Database.Statement;
  /** Every statement of one search in one read transaction: one shared lock instead of one per statement. */
  private readonly inOneRead: (folded: string) => SearchResults;

  private constructor(
    private readonly db: Database.Database,
    readonly generation: number,
  ) {
    this.byPrefix = db
      .prepare('SELECT item FROM name_keys WHERE kind_rank = ? AND fold >= ? AND fold < ? ORDER BY fold, item LIMIT ?')
      .pluck();
    this.bySubstring = new Map(
      SEARCH_KINDS.map((kind) => [kind, db.prepare(`SELECT rowid FROM ${ftsTableOf(kind)} WHERE ${ftsTableOf(kind)} MATCH ? ORDER BY rowid LIMIT ?`).pluck()]),
    );
    this.items = db.prepare(`SELECT ${ITEM_COLUMNS} FROM items WHERE id IN (SELECT value FROM json_each(?))`).raw();
    this.inOneRead = db.transaction((folded: string) => this.lookup(folded));
  }

  /** Opens a finished sidecar file read-only. */
  static open(file: string, generation: number): SearchIndex {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return new SearchIndex(db, generation);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** Reads `index_info` of a sidecar file without keeping it open (null when it is not a finished sidecar). */
  static readInfo(file: string): Record<string, string | null> | null {
    let db: Database.Database | null = null;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true });
      const rows = db.prepare('SELECT key, value FROM index_info').all() as { key: string; value: string | null }[];
      return Object.fromEntries(rows.map((row) => [row.key, row.value]));
    } catch {
      return null;
    } finally {
      db?.close();
    }
  }

  get isClosed(): boolean {
    return !this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * Matches `query` (case- and accent-folded) against the en, de and fr names. Per kind: names equal to the
   * query, then names starting with it (both by folded name), then names containing it elsewhere (queries of
   * three characters or more, by folded English name); at most PER_KIND_LIMIT per kind. Every step is an
   * index range that stops after the rows it needs.
   */
  search(query: string): SearchResults {
    const folded = foldText(query);
    return folded === '' ? emptyResults() : this.inOneRead(folded);
  }

  private lookup(folded: string): SearchResults {
    const results = emptyResults();
    const substring = Array.from(folded).length >= TRIGRAM_MIN_LENGTH;
    const phrase = `"${folded.replace(/"/g, '""')}"`;
    const chosenByKind = new Map<SearchKind, number[]>();
    SEARCH_KINDS.forEach((kind, rank) => {
      const chosen = new Set<number>();
      const take = (ids: number[]): void => {
        for (const id of ids) if (chosen.size < PER_KIND_LIMIT) chosen.add(id);
      };
      // an item has up to three names: three rows per item cover PER_KIND_LIMIT items
      take(this.byPrefix.all(rank, folded, folded + MAX_CHARACTER, PER_KIND_LIMIT * 3) as number[]);
      if (substring && chosen.size < PER_KIND_LIMIT) take(this.bySubstring.get(kind)!.all(phrase, PER_KIND_LIMIT + chosen.size) as number[]);
      if (chosen.size > 0) chosenByKind.set(kind, [...chosen]);
    });
    const wanted = [...chosenByKind.values()].flat();
    if (wanted.length === 0) return results;
    const rows = new Map((this.items.all(JSON.stringify(wanted)) as RawItemRow[]).map((row) => [row[0], row]));
    for (const [kind, ids] of chosenByKind) {
      results[RESULT_KEY[kind]] = ids.flatMap((id) => {
        const row = rows.get(id);
        return row === undefined ? [] : [toApiSearchHit(fromRaw(row, kind))];
      });
    }
    return results;
  }
}

function fromRaw(row: RawItemRow, kind: SearchKind): ItemRow {
  return {
    id: row[0], kind, item_id: row[1], name_en: row[2], name_de: row[3], name_fr: row[4],
    description_en: row[5], description_de: row[6], description_fr: row[7], meta: row[8],
  };
}

/** Maps a sidecar row to the API's SearchItem: missing variants filled from English, meta only when an object. */
export function toApiSearchHit(row: ItemRow): SearchHit {
  const hit: SearchHit = { id: row.item_id, kind: row.kind, name: localizedText(row.name_en, row.name_de, row.name_fr, row.item_id) };
  const description = optionalLocalizedText(row.description_en, row.description_de, row.description_fr);
  if (description !== null) hit.description = description;
  const meta = parseObject(row.meta);
  if (meta !== null) hit.meta = meta;
  return hit;
}

function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
