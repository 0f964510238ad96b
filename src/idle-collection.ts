import v8 from 'node:v8';
import { v8Collection } from './gc.js';

/**
 * How often the server looks whether it has gone idle: it collects between one and two looks after its last
 * request. A collection holds the main thread (110–210 ms after 1,000 small tenants on the loaded 2-core machine),
 * so it waits for a quiet spell in which a request is unlikely to arrive.
 */
export const IDLE_CHECK_MS = 5000;
/**
 * Growth of V8's heap since the last collection below which an idle server collects nothing: a health probe every
 * few seconds keeps the server from collecting for hours, and V8's own collections keep up with that.
 */
export const IDLE_COLLECTION_MIN_GROWTH_MB = 16;

/**
 * Requests since the last collection from which an idle server collects whatever its heap grew by: what requests
 * leave outside V8's heap (buffers the collector frees) is not in its growth. Measured while search answers' bodies
 * were still left to the collector (they are now given back once written: `EncodedJson.owned`): after the regress
 * bench's search loads the heap had grown by less than 16 MB, nothing was collected, and the idle RSS read
 * 187–202 MB; with this bound, 157 MB. A health probe every 5 s reaches it in 14 hours.
 */
export const IDLE_COLLECTION_MIN_REQUESTS = 10_000;

/** When the server looks, and how much growth makes it collect; the defaults above. */
export interface IdleCollectionTiming {
  checkMs: number;
  minGrowthMb: number;
}

/** What one idle collection did, in MB (logged). */
export interface IdleCollected {
  ms: number;
  heapMb: { before: number; after: number };
  rssMb: { before: number; after: number };
}

const MB = 1024 * 1024;
const mb = (bytes: number): number => Math.round((bytes / MB) * 10) / 10;
/** The memory of V8's heap that is resident. */
const heapResident = (): number => v8.getHeapStatistics().total_physical_size;

/**
 * V8 grows the heap well past what is live before it collects, and gives pages back only through its memory
 * reducer, which runs a few collections after a busy spell and then rests until the next full collection: whether
 * an idle server is left with the garbage of its last requests depends on when the reducer last ran. After 1,000
 * small tenants that was 55–60 MB of RSS in some runs and none in others, held for as long as the server stayed
 * idle. So once the server is idle, it runs V8's memory-reducing collection itself, once per busy spell (which also
 * gives back the young generation V8 grew under load), and the RSS an operator sees afterwards repeats.
 */
export class IdleCollection {
  private inFlight = 0;
  private started = 0;
  private startedAtLastLook = 0;
  /** Requests started up to the last collection. */
  private startedAtLast = 0;
  /**
   * The heap right after the last collection; null before the first, which comes at the first quiet look whatever
   * the heap: at start the heap holds the garbage of starting (contract, demo data) beside what is live, and growth
   * measured from there let a server that served a busy spell stay at its heap (57 instead of 30 MB) with no
   * collection.
   */
  private heapAfterLast: number | null = null;

  constructor(
    private readonly minGrowthMb: number = IDLE_COLLECTION_MIN_GROWTH_MB,
    private readonly heapBytes: () => number = heapResident,
    private readonly collect: () => void = memoryReducingCollection(),
    private readonly minRequests: number = IDLE_COLLECTION_MIN_REQUESTS,
  ) {}

  requestStarted(): void {
    this.inFlight += 1;
    this.started += 1;
  }

  requestEnded(): void {
    this.inFlight -= 1;
  }

  /**
   * One look (every IDLE_CHECK_MS): collects when no request is in flight, none has started since the last look,
   * and since the last collection the heap has grown by minGrowthMb or minRequests requests have started (or none
   * has run yet); answers what the collection did, or null.
   */
  look(): IdleCollected | null {
    const quiet = this.inFlight === 0 && this.started === this.startedAtLastLook;
    this.startedAtLastLook = this.started;
    const before = this.heapBytes();
    const grown = this.heapAfterLast === null || before - this.heapAfterLast >= this.minGrowthMb * MB || this.started - this.startedAtLast >= this.minRequests;
    if (!quiet || !grown) return null;
    this.startedAtLast = this.started;
    const rssBefore = process.memoryUsage.rss();
    const startedAt = performance.now();
    this.collect();
    const ms = performance.now() - startedAt;
    this.heapAfterLast = this.heapBytes();
    return { ms: Math.round(ms), heapMb: { before: mb(before), after: mb(this.heapAfterLast) }, rssMb: { before: mb(rssBefore), after: mb(process.memoryUsage.rss()) } };
  }
}

/**
 * V8's collection under memory pressure: a full collection that also returns the freed pages to the system at once
 * (a regular full collection keeps them pooled, and the RSS did not move). `first` lets go of what only a cache
 * holds, so that it goes with the rest.
 */
export function memoryReducingCollection(first: () => void = () => undefined): () => void {
  const gc = v8Collection();
  return () => {
    first();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  };
}
