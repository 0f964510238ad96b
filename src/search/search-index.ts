import Database from 'better-sqlite3';
import { EncodedJson } from '../common/encoded-json.js';
import type { components } from '../../generated/openapi.js';
import type { EncodedResults } from '../ports/tenant-reads.js';
import { foldText } from './fold.js';
import { ftsTableOf } from './index-builder.js';
import { NAME_END, NameIndex } from './name-index.js';
import { PER_KIND_LIMIT, SEARCH_KINDS, type SearchKind } from './search-kinds.js';
import type { SearchThread } from './search-thread.js';
import { HitTable, SIDECAR_CACHE_KIB, encodeHitRows, prepareHits } from './sidecar-hits.js';

/** The contract's SearchResults: nine arrays of hits, best first. */
export type SearchResults = components['schemas']['SearchResults'];


/** Shortest query the trigram index can serve (in characters); shorter ones match name prefixes only. */
export const TRIGRAM_MIN_LENGTH = 3;

/** Results with nine empty arrays. */
export const EMPTY_RESULTS: EncodedResults = new EncodedJson<SearchResults>(encodeHitRows([]));

/**
 * Sidecars of at most this many items read their names at once as they open, before their first search; larger ones
 * read them in slices that give way to requests (docs/decisions/0016-memory.md). The bound was set when the names
 * were built from the items on open (500 items took 7–134 ms on the 2-core bench machine under load); the builder
 * stores them now, and reading them takes far less (40–70 ms for 200,000 items).
 */
export const NAMES_ON_THIS_THREAD_MAX_ITEMS = 500;

/** Largest code point: `prefix + MAX_CHARACTER` bounds the folded names that start with `prefix`. */
const MAX_CHARACTER = '\u{10FFFF}';

/** The statements that match names in the sidecar, when its names are not in memory. */
interface NameStatements {
  byPrefix: Database.Statement;
  bySubstring: Map<SearchKind, Database.Statement>;
  /** Chooses the ids of one search in one read transaction: one shared lock, not one per statement. */
  chooseInOneRead: (folded: string) => number[][];
}

/** An open, read-only search sidecar of one tenant generation. */
export class SearchIndex {
  private readonly hits: Database.Statement;
  /**
   * Prepared on the first search without names in memory: the nine trigram tables cost their connection memory
   * only once a statement reads them. 64 sidecars of a 44-item tenant, opened and searched, grew the memory outside
   * V8's heap by 26 MB with these statements and by 12 MB with the names in memory instead.
   */
  private statements: NameStatements | null = null;
  /** The folded names in memory, once loadNames has finished: prefix and substring matches without SQL. */
  private names: NameIndex | null = null;
  /**
   * The hits of a large sidecar in memory, read after its names: a search then copies them instead of reading them
   * with the hits statement (docs/decisions/0017-search-thread.md).
   */
  private hitTable: HitTable | null = null;
  /** The names (and then the hits) being read in slices, until they are in. */
  private namesLoad: Promise<void> | null = null;
  /** The names alone being read in slices, until they are in. */
  private reading: Promise<void> | null = null;
  /** Items in the sidecar, as its build recorded them (Infinity when not recorded). */
  private readonly items: number;
  /**
   * The same sidecar open on the search thread, which then holds the names and answers the searches (`find`); null
   * for a small sidecar, without a search thread, or once the thread has failed this index.
   */
  private remote: { thread: SearchThread; key: number } | null = null;
  /** Bytes of the names the search thread holds for this index (while it runs: it reads them again as it starts). */
  private remoteNamesBytes = 0;

  private constructor(
    private readonly db: Database.Database,
    /** The sidecar file. */
    readonly file: string,
    readonly generation: number,
  ) {
    this.hits = prepareHits(db);
    const items = Number(db.prepare("SELECT value FROM index_info WHERE key = 'items'").pluck().get() ?? NaN);
    this.items = Number.isInteger(items) ? items : Infinity;
  }

  private nameStatements(): NameStatements {
    this.statements ??= {
      byPrefix: this.db.prepare('SELECT item FROM name_keys WHERE kind_rank = ? AND fold >= ? AND fold < ? ORDER BY fold, item LIMIT ?').pluck(),
      bySubstring: new Map(
        SEARCH_KINDS.map((kind) => [kind, this.db.prepare(`SELECT rowid FROM ${ftsTableOf(kind)} WHERE ${ftsTableOf(kind)} MATCH ? ORDER BY rowid LIMIT ?`).pluck()]),
      ),
      chooseInOneRead: this.db.transaction((folded: string) => this.choose(folded)),
    };
    return this.statements;
  }

  /**
   * Opens a finished sidecar file read-only; one of more than NAMES_ON_THIS_THREAD_MAX_ITEMS items is opened on
   * `thread` too, when given, which then answers its searches (`find`) and holds its names.
   */
  static open(file: string, generation: number, thread: SearchThread | null = null): SearchIndex {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    let index: SearchIndex;
    try {
      db.pragma(`cache_size = -${SIDECAR_CACHE_KIB}`);
      index = new SearchIndex(db, file, generation);
    } catch (err) {
      db.close();
      throw err;
    }
    if (thread !== null && !index.namesReadHere) index.remote = { thread, key: thread.open(file, generation) };
    return index;
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

  /** True from close() on. */
  get isClosed(): boolean {
    return !this.db.open;
  }

  /** Takes the index out of service and closes its connection (and its search thread's). */
  close(): void {
    this.names = null;
    this.hitTable = null;
    this.leaveThread();
    if (this.db.open) this.db.close();
  }

  /** Whether the search thread answers this index's searches. */
  get onThread(): boolean {
    return this.remote !== null;
  }

  /**
   * Bytes held by the in-memory names and hits, here or on the search thread (0 before loadNames, or after close).
   */
  get namesBytes(): number {
    return this.remote !== null ? this.remoteNamesBytes : (this.names?.bytes ?? 0) + (this.hitTable?.byteLength ?? 0);
  }

  /**
   * Reads the folded names into memory; later searches match them there instead of running two statements per
   * kind. A sidecar of at most `onThisThreadMaxItems` items is read at once, before this returns; a larger one in
   * slices (of about `sliceMs` of work each) that give way to other work between them, and its hits after them,
   * which searches then copy instead of reading them from the sidecar. Nothing is read that would take more than
   * `budgetBytes`: names whose stored size is over it stay on disk, and so do hits that do not fit beside the names.
   * Answers the bytes they take (0 when the index was closed meanwhile, or nothing fit). Results are the same either
   * way; only the cost differs.
   */
  async loadNames(onThisThreadMaxItems = NAMES_ON_THIS_THREAD_MAX_ITEMS, sliceMs?: number, budgetBytes = Number.POSITIVE_INFINITY): Promise<number> {
    const remote = this.remote;
    if (remote !== null) {
      const bytes = await remote.thread.loadNames(remote.key, budgetBytes);
      if (this.remote === remote) this.remoteNamesBytes = bytes;
      return this.namesBytes;
    }
    if (this.names === null && !this.isClosed && NameIndex.storedBytes(this.db) <= budgetBytes) {
      if (this.items <= onThisThreadMaxItems) this.names = NameIndex.read(this.db);
      else {
        // a second call while the slices run waits for them (the search thread reads names again as it starts)
        this.namesLoad ??= this.readInSlices(sliceMs, budgetBytes).finally(() => (this.namesLoad = null));
        await this.namesLoad;
      }
    }
    return this.namesBytes;
  }

  /**
   * A large sidecar's names, then its hits, read in slices. Searches use the names as soon as they are in, while the
   * hits are read (on the search thread, every search queued meanwhile runs between two slices).
   */
  private async readInSlices(sliceMs: number | undefined, budgetBytes: number): Promise<void> {
    const reading = NameIndex.load(this.db, () => this.isClosed, sliceMs);
    // settles either way: a search waiting for it runs on the statements when the read failed
    const settled = (): void => {
      this.reading = null;
    };
    this.reading = reading.then(settled, settled);
    const names = await reading;
    if (names === null || this.isClosed) return;
    this.names = names;
    // dropped or closed meanwhile: the hits are not wanted either
    const hits = await HitTable.load(this.db, () => this.names !== names, sliceMs, undefined, budgetBytes - names.bytes);
    if (hits !== null && this.names === names) this.hitTable = hits;
  }

  /**
   * While the names are being read in slices: resolves once they are in, or the read stopped or failed (it never
   * rejects); null otherwise.
   */
  get namesReading(): Promise<void> | null {
    return this.reading;
  }

  /** Whether loadNames reads the names on this thread, before it returns (a sidecar of few items). */
  get namesReadHere(): boolean {
    return this.items <= NAMES_ON_THIS_THREAD_MAX_ITEMS;
  }

  /** Drops the in-memory names (searches go back to the sidecar's statements). */
  dropNames(): void {
    this.names = null;
    this.hitTable = null;
    if (this.remote !== null) {
      this.remote.thread.dropNames(this.remote.key);
      this.remoteNamesBytes = 0;
    }
  }

  /**
   * `search`, answered by the search thread when this index is open there, otherwise here; the same text either
   * way. When the thread cannot answer (it failed or ended), this index leaves it and searches here from then on,
   * on the sidecar's statements until its names are read again.
   */
  async find(query: string): Promise<EncodedResults> {
    const remote = this.remote;
    if (remote === null) return this.search(query);
    const folded = foldText(query);
    if (this.isClosed) throw new Error('the search index is closed');
    if (folded === '' || folded.includes(NAME_END)) return EMPTY_RESULTS;
    try {
      const body = await remote.thread.search(remote.key, folded);
      return body === null ? EMPTY_RESULTS : new EncodedJson<SearchResults>(body);
    } catch (err) {
      if (this.isClosed) throw err;
      if (this.remote === remote) this.leaveThread();
      return this.search(query);
    }
  }

  private leaveThread(): void {
    if (this.remote === null) return;
    this.remote.thread.close(this.remote.key);
    this.remote = null;
    this.remoteNamesBytes = 0;
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
    if (this.isClosed) throw new Error('the search index is closed');
    if (folded === '' || folded.includes(NAME_END)) return EMPTY_RESULTS;
    const chosen = this.names !== null ? this.choose(folded) : this.nameStatements().chooseInOneRead(folded);
    if (!chosen.some((ids) => ids.length > 0)) return EMPTY_RESULTS;
    const body = this.hitTable !== null ? this.hitTable.encode(chosen) : encodeHitRows(this.hits.all(JSON.stringify(chosen)) as [number, Buffer][]);
    return new EncodedJson<SearchResults>(body);
  }

  /** The ids of the items to answer, per kind (by rank), in order. */
  private choose(folded: string): number[][] {
    const substring = Array.from(folded).length >= TRIGRAM_MIN_LENGTH;
    const phrase = `"${folded.replace(/"/g, '""')}"`;
    const chosenByRank: number[][] = [];
    // The in-memory names answer exactly what the statements below answer.
    const names = this.names;
    const query = names === null ? null : Buffer.from(folded);
    SEARCH_KINDS.forEach((kind, rank) => {
      const chosen = new Set<number>();
      const take = (ids: number[]): void => {
        for (const id of ids) if (chosen.size < PER_KIND_LIMIT) chosen.add(id);
      };
      // an item has up to three names: three rows per item cover PER_KIND_LIMIT items
      take(names !== null ? names.prefix(rank, query!, PER_KIND_LIMIT) : (this.nameStatements().byPrefix.all(rank, folded, folded + MAX_CHARACTER, PER_KIND_LIMIT * 3) as number[]));
      if (substring && chosen.size < PER_KIND_LIMIT) {
        const limit = PER_KIND_LIMIT + chosen.size;
        take(names !== null ? names.substring(rank, query!, limit) : (this.nameStatements().bySubstring.get(kind)!.all(phrase, limit) as number[]));
      }
      chosenByRank.push([...chosen]);
    });
    return chosenByRank;
  }
}
