import type { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.js';
import { DEFAULT_TENANT_HANDLES_MAX } from '../tenants/handle-pool.js';
import { startWorker } from '../worker-entry.js';

/**
 * A worker thread that stays this long without a read ends (its connections and ~20 MB of memory go with it);
 * the next search starts it again.
 */
export const HIT_READER_IDLE_MS = 30_000;
/** After the worker failed, searches read their hits on the main thread for this long before it is started again. */
const RETRY_MS = 10_000;
/** V8 young generation of the worker, in MB: it allocates little on its heap (the bodies are outside it). */
const WORKER_YOUNG_MB = 4;

/** What the worker is given. */
export interface HitReaderData {
  /** Connections it keeps open at most (TENANT_HANDLES_MAX, as the main thread's open sidecars). */
  maxOpen: number;
}

/** What the main thread asks the worker. */
export type HitReaderRequest =
  /** The hits of `ids` (the chosen ids per kind, as JSON) from sidecar `file`, opened under `key` if not yet. */
  | { kind: 'read'; id: number; key: number; file: string; ids: string }
  /** The sidecar opened under `key` is closed on the main thread: close it here too. */
  | { kind: 'release'; key: number };

/** What the worker answers. */
export type HitReaderReply =
  | { kind: 'ready' }
  /** The SearchResults body of read `id`. */
  | { kind: 'hits'; id: number; body: Uint8Array }
  | { kind: 'failed'; id: number; message: string };

interface Pending {
  resolve(body: Buffer): void;
  reject(err: Error): void;
}

/**
 * Reads search hits by id in a worker thread, so that on a machine with a second core the main thread only
 * chooses the ids and writes responses. Reading ~60 hits by id costs a B-tree seek each (a third of an unseen
 * query's CPU); the worker does that on connections of its own while the main thread serves the next request.
 *
 * The worker starts on the first search that wants it and ends after HIT_READER_IDLE_MS without one; searches
 * read their hits on the main thread until it is ready, while it is retried after a failure, and for any read it
 * could not answer (their results are the same either way: a sidecar is never changed once built).
 */
export class HitReader {
  private worker: Worker | null = null;
  private ready = false;
  private closed = false;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private idleTimer: NodeJS.Timeout | null = null;
  private failedAt = Number.NEGATIVE_INFINITY;
  /** Reads answered by the worker since this reader was made (tests). */
  reads = 0;

  constructor(
    private readonly log: Logger,
    /** Sidecar connections the worker keeps open at most. */
    readonly maxOpen: number = DEFAULT_TENANT_HANDLES_MAX,
    readonly idleMs: number = HIT_READER_IDLE_MS,
  ) {}

  /** Whether reads go to the worker now; starts it when it is not running (this read then happens on the caller's thread). */
  available(): boolean {
    if (this.ready) return true;
    if (this.worker === null && !this.closed && performance.now() - this.failedAt >= RETRY_MS) this.start();
    return false;
  }

  /** Whether the worker thread exists now (starting or ready). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** The SearchResults body of `ids` read from `file` by the worker; rejects when it cannot answer. */
  read(key: number, file: string, ids: string): Promise<Buffer> {
    const worker = this.worker;
    if (worker === null || !this.ready) return Promise.reject(new Error('the hit reader is not running'));
    const id = this.nextId++;
    if (this.pending.size === 0) {
      if (this.idleTimer !== null) clearTimeout(this.idleTimer);
      this.idleTimer = null;
      worker.ref(); // a read in flight keeps the process alive until answered
    }
    worker.postMessage({ kind: 'read', id, key, file, ids } satisfies HitReaderRequest);
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  /** Closes the worker's connection of the sidecar opened under `key` (after every read sent before). */
  release(key: number): void {
    this.worker?.postMessage({ kind: 'release', key } satisfies HitReaderRequest);
  }

  /** Ends the worker; reads in flight reject (their searches read on the main thread). */
  async close(): Promise<void> {
    this.closed = true;
    await this.stop(new Error('the hit reader is closed'));
  }

  private start(): void {
    const worker = startWorker(import.meta.url, 'hit-reader-worker', { maxOpen: this.maxOpen } satisfies HitReaderData, { maxYoungGenerationSizeMb: WORKER_YOUNG_MB });
    this.worker = worker;
    worker.unref();
    worker.on('message', (reply: HitReaderReply) => this.receive(reply));
    worker.on('error', (err) => this.fail(worker, err));
    worker.on('exit', (code) => this.fail(worker, new Error(`the hit reader exited with code ${code}`)));
  }

  private receive(reply: HitReaderReply): void {
    if (reply.kind === 'ready') {
      this.ready = true;
      this.scheduleIdle();
      return;
    }
    const pending = this.pending.get(reply.id);
    if (pending === undefined) return;
    this.pending.delete(reply.id);
    if (reply.kind === 'hits') {
      this.reads += 1;
      pending.resolve(Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength));
    } else {
      pending.reject(new Error(reply.message));
    }
    if (this.pending.size === 0) {
      this.worker?.unref();
      this.scheduleIdle();
    }
  }

  private scheduleIdle(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.pending.size === 0) void this.stop(null);
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** The worker failed (error or unexpected exit): its reads reject, and it is retried after RETRY_MS. */
  private fail(worker: Worker, err: Error): void {
    if (this.worker !== worker) return; // ended on purpose
    this.failedAt = performance.now();
    this.log.warn({ err: err.message }, 'search hit reader failed; searches read their hits on the main thread');
    void this.stop(err);
  }

  private async stop(err: Error | null): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    for (const pending of this.pending.values()) pending.reject(err ?? new Error('the hit reader ended'));
    this.pending.clear();
    if (worker !== null) await worker.terminate();
  }
}
