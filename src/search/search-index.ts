import Database from 'better-sqlite3';
import { EncodedJson } from '../http/encoded-json.js';
import type { components } from '../../generated/openapi.js';
import { foldText } from './fold.js';
import { ftsTableOf } from './index-builder.js';
import { NAME_END, NameIndex } from './name-index.js';
import { PER_KIND_LIMIT, RESULT_KEY, SEARCH_KINDS, type SearchKind } from './search-kinds.js';

/** The contract's SearchResults: nine arrays of hits, best first. */
export type SearchResults = components['schemas']['SearchResults'];

/** Search results as the JSON bytes a response sends (see EncodedJson). */
export type EncodedResults = EncodedJson<SearchResults>;

/** Shortest query the trigram index can serve (in characters); shorter ones match name prefixes only. */
export const TRIGRAM_MIN_LENGTH = 3;

/** The envelope around the nine arrays, in the contract's key order: `{"probes":[`, `],"hypotheses":[`, …, `]}`. */
const ENVELOPE = [...SEARCH_KINDS.map((kind, rank) => Buffer.from(`${rank === 0 ? '{' : '],'}"${RESULT_KEY[kind]}":[`)), Buffer.from(']}')];

/** Writes the results from each kind's hits, already joined by commas as JSON bytes (null: no hits). */
function encodeResults(hitsByRank: readonly (Buffer | null)[]): EncodedResults {
  const parts: Buffer[] = [];
  SEARCH_KINDS.forEach((_, rank) => {
    parts.push(ENVELOPE[rank]!);
    const hits = hitsByRank[rank];
    if (hits !== null && hits !== undefined) parts.push(hits);
  });
  parts.push(ENVELOPE[SEARCH_KINDS.length]!);
  return new EncodedJson<SearchResults>(Buffer.concat(parts));
}

/** Results with nine empty arrays. */
export const EMPTY_RESULTS: EncodedResults = encodeResults([]);

/**
 * Page cache of an open sidecar, in KiB (better-sqlite3's default is 16 MB per connection). A search touches a
 * few dozen pages (B-tree ranges, trigram postings, the hits by id); pages missed here come from the operating
 * system's file cache. With TENANT_HANDLES_MAX sidecars open the total stays at TENANT_HANDLES_MAX × this.
 */
export const SIDECAR_CACHE_KIB = 1024;

/** Largest code point: `prefix + MAX_CHARACTER` bounds the folded names that start with `prefix`. */
const MAX_CHARACTER = '\u{10FFFF}';

/** An open, read-only search sidecar of one tenant generation. */
export class SearchIndex {
  private readonly byPrefix: Database.Statement;
  private readonly bySubstring: Map<SearchKind, Database.Statement>;
  private readonly hits: Database.Statement;
  /** Every statement of one search in one read transaction: one shared lock instead of one per statement. */
  private readonly inOneRead: (folded: string) => EncodedResults;
  /** The folded names in memory, once loadNames has finished: prefix and substring matches without SQL. */
  private names: NameIndex | null = null;

  private constructor(
    private readonly db: Database.Database,
    /** The sidecar file. */
    readonly file: string,
    readonly generation: number,
  ) {
    this.byPrefix = db
      .prepare('SELECT item FROM name_keys WHERE kind_rank = ? AND fold >= ? AND fold < ? ORDER BY fold, item LIMIT ?')
      .pluck();
    this.bySubstring = new Map(
      SEARCH_KINDS.map((kind) => [kind, db.prepare(`SELECT rowid FROM ${ftsTableOf(kind)} WHERE ${ftsTableOf(kind)} MATCH ? ORDER BY rowid LIMIT ?`).pluck()]),
    );
    // Given the chosen ids of each kind as a JSON array of nine arrays, the hits of each kind that has any, in the
    // order chosen, joined into one JSON text by SQLite and read as bytes: one value per kind instead of a string
    // per hit decoded from UTF-8 and encoded again.
    this.hits = db
      .prepare(
        `SELECT k.key, CAST(group_concat(i.hit, ',' ORDER BY j.key) AS BLOB) FROM json_each(?) AS k, json_each(k.value) AS j JOIN items AS i ON i.id = j.value GROUP BY k.key`,
      )
      .raw();
    this.inOneRead = db.transaction((folded: string) => this.lookup(folded));
  }

  /** Opens a finished sidecar file read-only. */
  static open(file: string, generation: number): SearchIndex {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma(`cache_size = -${SIDECAR_CACHE_KIB}`);
      return new SearchIndex(db, file, generation);
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
    this.names = null;
    if (this.db.open) this.db.close();
  }

  /** Bytes held by the in-memory names (0 before loadNames, or after close). */
  get namesBytes(): number {
    return this.names?.bytes ?? 0;
  }

  /**
   * Reads the folded names into memory (in a worker thread); later searches match them there instead of
   * running two statements per kind. Answers the bytes they take (0 when the index was closed meanwhile).
   * Results are the same either way; only the cost differs.
   */
  async loadNames(): Promise<number> {
    if (this.names === null) {
      const names = await NameIndex.load(this.file, () => this.isClosed);
      if (names !== null && !this.isClosed) this.names = names;
    }
    return this.namesBytes;
  }

  /** Drops the in-memory names (searches go back to the sidecar's statements). */
  dropNames(): void {
    this.names = null;
  }

  /**
   * Matches `query` (case- and accent-folded) against the en, de and fr names. Per kind: names equal to the
   * query, then names starting with it (both by folded name), then names containing it elsewhere (queries of
   * three characters or more, by folded English name); at most PER_KIND_LIMIT per kind. Every step is an
   * index range (or an in-memory lookup) that stops after the rows it needs. A query with U+0000 matches
   * nothing (FTS5 cannot take it; the API answers 400 for it).
   */
  search(query: string): EncodedResults {
    const folded = foldText(query);
    return folded === '' || folded.includes(NAME_END) ? EMPTY_RESULTS : this.inOneRead(folded);
  }

  private lookup(folded: string): EncodedResults {
    const substring = Array.from(folded).length >= TRIGRAM_MIN_LENGTH;
    const phrase = `"${folded.replace(/"/g, '""')}"`;
    const chosenByRank: number[][] = [];
    let wanted = 0;
    // The in-memory names answer exactly what the statements below answer.
    const names = this.names;
    const query = names === null ? null : Buffer.from(folded);
    SEARCH_KINDS.forEach((kind, rank) => {
      const chosen = new Set<number>();
      const take = (ids: number[]): void => {
        for (const id of ids) if (chosen.size < PER_KIND_LIMIT) chosen.add(id);
      };
      // an item has up to three names: three rows per item cover PER_KIND_LIMIT items
      take(names !== null ? names.prefix(rank, query!, PER_KIND_LIMIT) : (this.byPrefix.all(rank, folded, folded + MAX_CHARACTER, PER_KIND_LIMIT * 3) as number[]));
      if (substring && chosen.size < PER_KIND_LIMIT) {
        const limit = PER_KIND_LIMIT + chosen.size;
        take(names !== null ? names.substring(rank, query!, limit) : (this.bySubstring.get(kind)!.all(phrase, limit) as number[]));
      }
      chosenByRank.push([...chosen]);
      wanted += chosen.size;
    });
    if (wanted === 0) return EMPTY_RESULTS;
    const hitsByRank: (Buffer | null)[] = chosenByRank.map(() => null);
    for (const [rank, hits] of this.hits.all(JSON.stringify(chosenByRank)) as [number, Buffer][]) hitsByRank[rank] = hits;
    return encodeResults(hitsByRank);
  }
}
