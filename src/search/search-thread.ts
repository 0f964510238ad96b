import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker-entry.js';

/** What the main thread asks of the search thread; `key` names one open index of the main thread. */
export type SearchThreadRequest =
  | { kind: 'open'; key: number; file: string; generation: number }
  | { kind: 'names'; id: number; key: number }
  | { kind: 'drop-names'; key: number }
  | { kind: 'search'; id: number; key: number; folded: string }
  | { kind: 'close'; key: number }
  | { kind: 'collect' }
  | { kind: 'end' };

/** What the search thread answers: the body of a search (null: no hit), the bytes of names read, or a failure. */
export type SearchThreadReply =
  | { kind: 'addon-loaded' }
  | { kind: 'answer'; id: number; body?: Uint8Array | null; namesBytes?: number }
  | { kind: 'failed'; id: number; message: string };

interface Pending {
  resolve: (reply: Extract<SearchThreadReply, { kind: 'answer' }>) => void;
  reject: (err: Error) => void;
}

/** The running thread and the calls it has not answered. */
interface Running {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Indexes opened on it and not closed. */
  open: Set<number>;
}

/**
 * One worker thread that holds the in-memory names and a connection of every large sidecar open on the main thread,
 * and answers their searches: choosing the items, reading their hits and writing the body, whose bytes it transfers
 * back. The main thread keeps the HTTP work of a search, the other core the search itself
 * (docs/decisions/0017-search-thread.md). It starts with the first index opened on it and ends once the last one is
 * closed. An index whose thread failed or ended searches on its own connection (`SearchIndex.find`).
 */
export class SearchThread {
  private running: Running | null = null;
  private nextKey = 1;
  private nextId = 1;
  /** Threads started so far (tests). */
  started = 0;

  /** Whether a thread runs now. */
  get isRunning(): boolean {
    return this.running !== null;
  }

  /** Opens `file` on the thread (starting it when none runs) and answers the key of that index. */
  open(file: string, generation: number): number {
    const running = (this.running ??= this.start());
    const key = this.nextKey++;
    running.open.add(key);
    running.worker.postMessage({ kind: 'open', key, file, generation } satisfies SearchThreadRequest);
    return key;
  }

  /** The body of the search of `folded` (already folded, not empty) on index `key`; null when nothing matched. */
  async search(key: number, folded: string): Promise<Buffer | null> {
    const { body } = await this.call(key, (id) => ({ kind: 'search', id, key, folded }));
    return body === null || body === undefined ? null : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  }

  /** Reads the names of index `key` into the thread's memory; answers their bytes (0 when it was closed meanwhile). */
  async loadNames(key: number): Promise<number> {
    return (await this.call(key, (id) => ({ kind: 'names', id, key }))).namesBytes ?? 0;
  }

  dropNames(key: number): void {
    if (this.running?.open.has(key) === true) this.running.worker.postMessage({ kind: 'drop-names', key } satisfies SearchThreadRequest);
  }

  /** Closes index `key` on the thread; the thread ends once no index is open on it. */
  close(key: number): void {
    const running = this.running;
    if (running === null || !running.open.delete(key)) return;
    running.worker.postMessage({ kind: 'close', key } satisfies SearchThreadRequest);
    if (running.open.size === 0) this.end(running);
  }

  /** Asks the thread for V8's memory-reducing collection (the server is idle: idle-collection.ts). */
  collect(): void {
    this.running?.worker.postMessage({ kind: 'collect' } satisfies SearchThreadRequest);
  }

  /** Ends the thread now (shutdown; tests: a thread that fails). Open indexes then search on their own connections. */
  stop(): void {
    if (this.running !== null) this.end(this.running);
  }

  private call(key: number, request: (id: number) => SearchThreadRequest): Promise<Extract<SearchThreadReply, { kind: 'answer' }>> {
    const running = this.running;
    if (running === null || !running.open.has(key)) return Promise.reject(new Error('the index is not open on the search thread'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      running.pending.set(id, { resolve, reject });
      running.worker.postMessage(request(id));
    });
  }

  private start(): Running {
    const worker = startWorker(import.meta.url, 'search-thread-worker', null);
    // an idle server does not wait for it to end
    worker.unref();
    const running: Running = { worker, pending: new Map(), open: new Set() };
    this.started += 1;
    worker.on('message', (reply: SearchThreadReply) => {
      if (reply.kind === 'addon-loaded') return;
      const pending = running.pending.get(reply.id);
      if (pending === undefined) return;
      running.pending.delete(reply.id);
      if (reply.kind === 'answer') pending.resolve(reply);
      else pending.reject(new Error(reply.message));
    });
    const gone = (reason: string): void => this.forget(running, new Error(reason));
    worker.on('error', (err) => gone(`the search thread failed: ${err.message}`));
    worker.on('exit', (code) => gone(`the search thread exited with code ${code}`));
    return running;
  }

  /**
   * Asks the thread to close its indexes and end on its own, not terminated: a thread must not be terminated while
   * better-sqlite3 loads in it (worker-entry.ts), and this one may still be starting.
   */
  private end(running: Running): void {
    running.worker.postMessage({ kind: 'end' } satisfies SearchThreadRequest);
    this.forget(running, new Error('the search thread ended'));
  }

  private forget(running: Running, reason: Error): void {
    if (this.running === running) this.running = null;
    running.open.clear();
    for (const pending of running.pending.values()) pending.reject(reason);
    running.pending.clear();
  }
}
