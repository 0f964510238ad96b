import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { Logger } from '../logger.js';
import type { Count } from '../metrics/metrics.js';
import { DEFAULT_TENANT_HANDLES_MAX } from '../tenants/handle-pool.js';
import { INDEX_FORMAT, buildSearchIndex } from './index-builder.js';
import { foldText } from './fold.js';
import { SearchResultCache } from './result-cache.js';
import type { SearchHitCheck } from './search-hit.js';
import { EMPTY_RESULTS, SearchIndex } from './search-index.js';
import type { EncodedResults } from '../ports/tenant-reads.js';
import type { SearchThread } from './search-thread.js';
import { indexRoomFor, type SidecarSpace } from './build-room.js';

/** The KLS generation a search runs on: which tenant, where its files live, and a leased connection. */
export interface IndexSource {
  compositeId: string;
  /** Folder of the KLS file; the sidecar goes beside it. */
  dir: string;
  generation: number;
  /** Identity of the KLS file of this generation (null when unknown: the sidecar is then rebuilt, never reused). */
  fingerprint: string | null;
  db: Database.Database;
}

interface Slot {
  generation: number;
  ready: Promise<SearchIndex>;
  /** The index once open and in service: it counts against the bound of open sidecars. */
  index: SearchIndex | null;
  /** Searches waiting for or running on this slot: it is not closed under them. */
  users: number;
}

/** Size of a file, 0 when it cannot be read. */
function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

const toMb = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;

const FILE_PATTERN = /^search-index\.g(\d+)\.sqlite(\.tmp-.*)?$/;
/** Temporary files older than this are leftovers of a build that died (another process's build may be running). */
const STALE_TEMP_MS = 10 * 60 * 1000;

/** File name of the sidecar of one generation: `search-index.g<generation>.sqlite` beside the KLS. */
export const sidecarPath = (dir: string, generation: number): string => path.join(dir, `search-index.g${generation}.sqlite`);

/**
 * One search sidecar per tenant generation: reused when the file on disk was built from the same KLS file,
 * otherwise built on the first search of that generation; older generations' files are deleted once the
 * newer one is in service. At most `maxOpen` sidecars stay open: beyond it the least recently searched idle one
 * is closed (its names leave memory and return their share of the budget) and opened again by its next search.
 */
export class SearchIndexes {
  /** By composite ID; iteration order is recency (a search moves its slot to the end). */
  private readonly slots = new Map<string, Slot>();
  private closed = false;
  /** Builds started ahead of searches run one after another, on this chain. */
  private prepared: Promise<void> = Promise.resolve();
  /** In-memory names are read one index at a time, on this chain (one build's transient memory at a time). */
  private namesLoading: Promise<void> = Promise.resolve();
  /** Bytes of in-memory names per open index. */
  private readonly namesCharged = new Map<SearchIndex, number>();
  /** The bounded store cache's room for builds; null: builds write what they need. */
  private space: SidecarSpace | null = null;

  constructor(
    private readonly log: Logger,
    /** The contract's SearchItem check, run on every hit when a sidecar is built. */
    private readonly checkHit: SearchHitCheck,
    /**
     * Budget for in-memory names (with a large index's hits) over all open indexes (SEARCH_MEMORY_MB); an index past
     * it searches its sidecar.
     */
    readonly namesBudgetBytes: number,
    /** Results per (tenant, generation, folded query); shared between requests, never mutated. */
    readonly cache: SearchResultCache = new SearchResultCache(),
    /** Open sidecars beyond which idle ones are closed (TENANT_HANDLES_MAX). */
    readonly maxOpen: number = DEFAULT_TENANT_HANDLES_MAX,
    /** Counts the idle indexes closed to stay within `maxOpen`. */
    private readonly closedCount?: Count,
    /** Answers the searches of large sidecars and holds their names, beside the main thread (null: all here). */
    private readonly thread: SearchThread | null = null,
  ) {}

  /** Sidecars open now (in service; older generations close as soon as the newer one is open). */
  get openIndexes(): number {
    let open = 0;
    for (const slot of this.slots.values()) if (slot.index !== null && !slot.index.isClosed) open += 1;
    return open;
  }

  /** Bytes of in-memory names held now, over all open indexes. */
  get namesBytes(): number {
    let total = 0;
    for (const bytes of this.namesCharged.values()) total += bytes;
    return total;
  }

  /** Has sidecar builds claim their room in `space` (store mode with a bounded cache). */
  buildIn(space: SidecarSpace): void {
    this.space = space;
  }

  /**
   * Closes the tenant's index and forgets it, so that its files may be deleted (its tenant was evicted from the
   * store cache, which leases nothing of it: no search runs on it).
   */
  forget(compositeId: string): void {
    const slot = this.slots.get(compositeId);
    if (slot === undefined) return;
    this.slots.delete(compositeId);
    void slot.ready.then((index) => this.retire(index), () => undefined);
  }

  /** Resolves once every in-memory names load started so far has finished (tests, benchmarks). */
  namesSettled(): Promise<void> {
    return this.namesLoading;
  }

  /** Resolves once the index builds queued by prepare() so far are over, their leases released (tests). */
  buildsSettled(): Promise<void> {
    return this.prepared;
  }

  /**
   * Searches the tenant generation of `source`, building its sidecar first when needed; a repeated query of
   * the same generation is answered from the result cache.
   */
  async search(source: IndexSource, query: string): Promise<EncodedResults> {
    const folded = foldText(query);
    if (folded === '') return EMPTY_RESULTS;
    for (;;) {
      const slot = this.slotFor(source);
      this.touch(source.compositeId, slot);
      // the slot is not closed to stay within the bound while this search waits for it or runs on it
      slot.users += 1;
      let index: SearchIndex | null = null;
      let results: EncodedResults | null = null;
      try {
        index = await slot.ready;
        // A newer generation may have replaced (and closed) this index while we waited.
        if (!index.isClosed) {
          const key = SearchResultCache.keyOf(source.compositeId, index.generation, folded);
          const cached = this.cache.get(key);
          if (cached !== undefined) return cached;
          results = await index.find(folded);
          this.cache.set(key, results);
        }
      } catch (err) {
        // closed while the search thread was answering: the slot that replaced it answers
        if (index === null || !index.isClosed || this.closed) throw err;
      } finally {
        slot.users -= 1;
      }
      if (results !== null) {
        this.trim();
        return results;
      }
      if (this.closed) throw new Error('search indexes are closed');
    }
  }

  /** The index of `source`'s generation, or of a newer one when that is already known. */
  indexFor(source: IndexSource): Promise<SearchIndex> {
    return this.slotFor(source).ready;
  }

  private slotFor(source: IndexSource): Slot {
    const slot = this.slots.get(source.compositeId);
    if (slot !== undefined && slot.generation >= source.generation) return slot;
    const ready = this.open(source);
    const next: Slot = { generation: source.generation, ready, index: null, users: 0 };
    this.slots.set(source.compositeId, next);
    ready.then(
      (index) => {
        if (this.slots.get(source.compositeId) !== next || this.closed) {
          this.retire(index);
          return;
        }
        next.index = index;
        void slot?.ready.then((old) => this.retire(old), () => undefined);
        this.removeOtherFiles(source.dir, source.generation);
        this.space?.changed(source.compositeId);
        this.loadNames(source.compositeId, index);
        this.trim();
      },
      (err: unknown) => {
        if (this.slots.get(source.compositeId) === next) this.slots.delete(source.compositeId);
        this.log.error({ tenant: source.compositeId, generation: source.generation, err: (err as Error).message }, 'search index build failed');
      },
    );
    return next;
  }

  /** Marks a tenant's slot as the most recently searched. */
  private touch(compositeId: string, slot: Slot): void {
    this.slots.delete(compositeId);
    this.slots.set(compositeId, slot);
  }

  /**
   * Closes open sidecars beyond `maxOpen`, least recently searched first, skipping those searches wait for; a
   * closed one leaves the map, so its next search opens it again (the file is reused, not rebuilt).
   */
  private trim(): void {
    // every search calls this: with no more tenants than the bound, nothing can be over it
    if (this.slots.size <= this.maxOpen) return;
    let open = this.openIndexes;
    for (const [compositeId, slot] of this.slots) {
      if (open <= this.maxOpen) return;
      if (slot.index === null || slot.index.isClosed || slot.users > 0) continue;
      this.slots.delete(compositeId);
      this.retire(slot.index);
      this.closedCount?.inc();
      open -= 1;
    }
  }

  /**
   * Opens or builds an index ahead of the first search (after a tenant file is put in service). Such builds run
   * one at a time; `take` is called when this one's turn comes and answers the source and its lease, or null
   * when there is nothing to do any more. A search does not wait for this queue: when it comes first it starts
   * the build itself and the queued turn finds it done. Failures are logged by indexFor.
   */
  prepare(take: () => (IndexSource & { release: () => void }) | null): void {
    this.prepared = this.prepared.then(async () => {
      if (this.closed) return;
      const source = take();
      if (source === null) return;
      try {
        await this.indexFor(source);
      } catch {
        // logged by indexFor; the next search tries again
      } finally {
        source.release();
      }
    });
  }

  /** Closes every open index (shutdown). */
  close(): void {
    this.closed = true;
    this.cache.clear();
    this.namesCharged.clear();
    for (const slot of this.slots.values()) void slot.ready.then((index) => this.retire(index), () => undefined);
    this.slots.clear();
    this.thread?.stop();
  }

  /** Closes an index that is no longer in service and returns its names' bytes to the budget. */
  private retire(index: SearchIndex): void {
    this.namesCharged.delete(index);
    index.close();
  }

  /**
   * Reads an index's names into memory when the budget has room. A small index's names are read at once, so that
   * its first search already uses them and its sidecar's name statements are never prepared; larger ones are
   * queued and read in slices, one index at a time. The size is known only once read: names that
   * would overrun the budget are dropped again and the index keeps using its sidecar's statements.
   */
  private loadNames(compositeId: string, index: SearchIndex): void {
    if (index.namesReadHere) {
      const loaded = this.chargeNames(compositeId, index);
      this.namesLoading = this.namesLoading.then(() => loaded);
    } else {
      this.namesLoading = this.namesLoading.then(() => this.chargeNames(compositeId, index));
    }
  }

  private async chargeNames(compositeId: string, index: SearchIndex): Promise<void> {
    if (index.isClosed || this.namesBytes >= this.namesBudgetBytes) return;
    const started = performance.now();
    try {
      const bytes = await index.loadNames(undefined, undefined, this.namesBudgetBytes - this.namesBytes);
      if (index.isClosed || bytes === 0) return;
      if (this.namesBytes + bytes > this.namesBudgetBytes) {
        index.dropNames();
        this.log.info({ tenant: compositeId, generation: index.generation, mb: toMb(bytes), budgetMb: toMb(this.namesBudgetBytes) }, 'search names left on disk: over SEARCH_MEMORY_MB');
        return;
      }
      this.namesCharged.set(index, bytes);
      this.log.info({ tenant: compositeId, generation: index.generation, mb: toMb(bytes), ms: Math.round(performance.now() - started) }, 'search names in memory');
    } catch (err) {
      index.dropNames();
      this.log.warn({ tenant: compositeId, generation: index.generation, err: (err as Error).message }, 'search names could not be read into memory');
    }
  }

  private async open(source: IndexSource): Promise<SearchIndex> {
    const file = sidecarPath(source.dir, source.generation);
    const info = fs.existsSync(file) ? SearchIndex.readInfo(file) : null;
    const reusable =
      info !== null && source.fingerprint !== null && info['format'] === INDEX_FORMAT && info['fingerprint'] === source.fingerprint &&
      info['contract'] === this.checkHit.contract; // hits checked against another contract are checked again
    if (reusable) {
      return SearchIndex.open(file, source.generation, this.closed ? null : this.thread);
    }
    const started = performance.now();
    const space = this.space;
    const room = space === null ? null : space.claim(source.compositeId, indexRoomFor(fileBytes(source.db.name)));
    if (space !== null && room === null) throw new Error('no room in the store cache for the search index: the tenants in it are in use');
    try {
      await buildSearchIndex(source.db, file, { fingerprint: source.fingerprint, checkHit: this.checkHit, room });
    } finally {
      space?.changed(source.compositeId);
      room?.release();
    }
    this.log.info(
      { tenant: source.compositeId, generation: source.generation, ms: Math.round(performance.now() - started) },
      'search index built',
    );
    return SearchIndex.open(file, source.generation, this.closed ? null : this.thread);
  }

  private removeOtherFiles(dir: string, keep: number): void {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const match = FILE_PATTERN.exec(name);
      if (match === null) continue;
      const file = path.join(dir, name);
      try {
        if (match[2] !== undefined) {
          if (Date.now() - fs.statSync(file).mtimeMs > STALE_TEMP_MS) fs.rmSync(file, { force: true });
        } else if (Number(match[1]) !== keep) {
          fs.rmSync(file, { force: true });
        }
      } catch (err) {
        this.log.warn({ file, err: (err as Error).message }, 'could not remove an old search index file');
      }
    }
  }
}
