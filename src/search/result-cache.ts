import { UNCOUNTED, type Count } from '../metrics/metrics.js';
import type { EncodedResults } from '../ports/tenant-reads.js';

/** Entries kept by default: typeahead repeats a small set of prefixes, and a full result is ~2-25 KB of JSON. */
export const RESULT_CACHE_ENTRIES = 256;

/**
 * Least-recently-used cache of search results per (tenant composite ID, index generation, folded query), kept from
 * the second time a query is searched: the first time only its key is remembered (the last `capacity` × 4 of
 * them). A result kept outlives the young generation's collections and dies in the old one, which V8 then has to
 * mark: keeping every result cost about a sixth of the unseen searches a server answers, for queries that are
 * rarely asked again (docs/decisions/0017-search-thread.md); typeahead's repeated ones are kept from their second
 * search on.
 * A new generation has a new key, so a replaced tenant file never serves old results; old keys age out. A hit is the
 * very body that was stored (a string: never changed).
 */
export class SearchResultCache {
  private readonly entries = new Map<string, EncodedResults>();
  /** Keys of results searched once and not kept, oldest first. */
  private readonly seen = new Set<string>();
  hits = 0;
  misses = 0;

  constructor(
    readonly capacity: number = RESULT_CACHE_ENTRIES,
    /** The server's hit and miss counters (metrics), moved with `hits` and `misses`. */
    private readonly counts: { hits: Count; misses: Count } = { hits: UNCOUNTED, misses: UNCOUNTED },
  ) {}

  /** Key of one search; the NUL separator cannot occur in a composite ID. */
  static keyOf(compositeId: string, generation: number, folded: string): string {
    return `${compositeId}\u0000${generation}\u0000${folded}`;
  }

  /** The cached results of `key`, marked most recently used; undefined on a miss. */
  get(key: string): EncodedResults | undefined {
    const found = this.entries.get(key);
    if (found === undefined) {
      this.misses += 1;
      this.counts.misses.inc();
      return undefined;
    }
    this.hits += 1;
    this.counts.hits.inc();
    this.entries.delete(key);
    this.entries.set(key, found);
    return found;
  }

  /**
   * Stores `results` when `key` was searched before (and is still remembered), evicting the least recently used
   * entry beyond capacity; otherwise remembers the key (capacity 0 disables the cache).
   */
  set(key: string, results: EncodedResults): void {
    if (this.capacity <= 0) return;
    if (!this.entries.has(key) && !this.seen.delete(key)) {
      this.seen.add(key);
      if (this.seen.size > this.capacity * 4) this.seen.delete(this.seen.values().next().value as string);
      return;
    }
    this.entries.delete(key);
    this.entries.set(key, results);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.seen.clear();
  }
}
