import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker-entry.js';

/** What the main thread asks of the search thread; `key` names one open index of the main thread. */
export type SearchThreadRequest =
  | { kind: 'open'; key: number; file: string; generation: number }
  | { kind: 'names'; id: number; key: number; budgetBytes: number }
  | { kind: 'drop-names'; key: number }
  | { kind: 'search'; id: number; key: number; folded: string }
  | { kind: 'close'; key: number }
  | { kind: 'end' };

/** What the search thread answers: the body of a search (null: no hit), the bytes of names read, or a failure. */
export type SearchThreadReply =
  | { kind: 'addon-loaded' }
  | { kind: 'answer'; id: number; body?: string | null; namesBytes?: number }
  | { kind: 'failed'; id: number; message: string };

interface Pending {
  resolve: (reply: Extract<SearchThreadReply, { kind: 'answer' }>) => void;
  reject: (err: Error) => void;
}

/** The running thread and the calls it has not answered. */
interface Running {
  worker: Worker;
  pending: Map<number, Pending>;
}

/** An index opened on the search thread and not closed, as a thread started again must open it. */
interface Opened {
  file: string;
  generation: number;
  /** Whether its names are wanted in the thread's memory (loadNames called, dropNames not since). */
  names: boolean;
  /** The most bytes its names and hits may take (what loadNames was given). */
  budgetBytes: number;
}

/**
 * How long the search thread runs without a call before it ends, giving back its names and connections: the idle
 * server's memory (docs/decisions/0017-search-thread.md). As long as the reader threads wait.
 */
export const SEARCH_THREAD_IDLE_MS = 30_000;

/**
 * One worker thread that holds the in-memory names and a connection of every large sidecar open on the main thread,
 * and answers their searches: choosing the items, reading their hits and writing the body, whose text it sends
 * back. The main thread keeps the HTTP work of a search, the other core the search itself
 * (docs/decisions/0017-search-thread.md). It starts with the first index opened on it, ends `idleMs` after its last
 * call, starts again with the next one (opening its indexes and reading their names again), and ends once the last
 * index is closed. An index whose thread failed searches on its own connection (`SearchIndex.find`). Emits `ended`
 * when it ends idle.
 */
export class SearchThread extends EventEmitter {
  private running: Running | null = null;
  /** By key: they outlive a thread that ended idle. */
  private readonly opened = new Map<number, Opened>();
  private idleTimer: NodeJS.Timeout | null = null;
  private nextKey = 1;
  private nextId = 1;
  /** Threads started so far (tests). */
  started = 0;

  constructor(readonly idleMs: number = SEARCH_THREAD_IDLE_MS) {
    super();
  }

  /** Whether a thread runs now. */
  get isRunning(): boolean {
    return this.running !== null;
  }

  /** Opens `file` on the thread (starting it when none runs) and answers the key of that index. */
  open(file: string, generation: number): number {
    const key = this.nextKey++;
    this.opened.set(key, { file, generation, names: false, budgetBytes: 0 });
    if (this.running === null) this.running = this.start();
    else this.running.worker.postMessage({ kind: 'open', key, file, generation } satisfies SearchThreadRequest);
    this.armIdle(this.running);
    return key;
  }

  /** The body of the search of `folded` (already folded, not empty) on index `key`; null when nothing matched. */
  async search(key: number, folded: string): Promise<string | null> {
    const { body } = await this.call(key, (id) => ({ kind: 'search', id, key, folded }));
    return body ?? null;
  }

  /**
   * Reads the names of index `key` into the thread's memory, and its hits when they fit `budgetBytes` too (and again
   * whenever the thread starts again); answers their bytes (0 when it was closed meanwhile or they do not fit).
   */
  async loadNames(key: number, budgetBytes: number): Promise<number> {
    const opened = this.opened.get(key);
    if (opened !== undefined) {
      opened.names = true;
      opened.budgetBytes = budgetBytes;
    }
    return (await this.call(key, (id) => ({ kind: 'names', id, key, budgetBytes }))).namesBytes ?? 0;
  }

  dropNames(key: number): void {
    const opened = this.opened.get(key);
    if (opened === undefined) return;
    opened.names = false;
    this.running?.worker.postMessage({ kind: 'drop-names', key } satisfies SearchThreadRequest);
  }

  /** Closes index `key` on the thread; the thread ends once no index is open on it. */
  close(key: number): void {
    if (!this.opened.delete(key) || this.running === null) return;
    this.running.worker.postMessage({ kind: 'close', key } satisfies SearchThreadRequest);
    if (this.opened.size === 0) this.end(this.running);
  }

  /**
   * Ends the thread now and forgets its indexes (shutdown; tests: a thread that fails): they search on their own
   * connections from then on.
   */
  stop(): void {
    this.opened.clear();
    if (this.running !== null) this.end(this.running);
  }

  private call(key: number, request: (id: number) => SearchThreadRequest): Promise<Extract<SearchThreadReply, { kind: 'answer' }>> {
    if (!this.opened.has(key)) return Promise.reject(new Error('the index is not open on the search thread'));
    const running = (this.running ??= this.start());
    this.disarmIdle();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      running.pending.set(id, { resolve, reject });
      running.worker.postMessage(request(id));
    });
  }

  /** Starts a thread and opens every index on it, reading the names of those that want them (between searches). */
  private start(): Running {
    const worker = startWorker(import.meta.url, 'search-thread-worker', null);
    // an idle server does not wait for it to end
    worker.unref();
    const running: Running = { worker, pending: new Map() };
    this.started += 1;
    for (const [key, { file, generation, names, budgetBytes }] of this.opened) {
      worker.postMessage({ kind: 'open', key, file, generation } satisfies SearchThreadRequest);
      // its answer goes to no caller: searches meanwhile use the sidecar's statements
      if (names) worker.postMessage({ kind: 'names', id: this.nextId++, key, budgetBytes } satisfies SearchThreadRequest);
    }
    worker.on('message', (reply: SearchThreadReply) => {
      if (reply.kind === 'addon-loaded') return;
      const pending = running.pending.get(reply.id);
      if (pending === undefined) return;
      running.pending.delete(reply.id);
      if (reply.kind === 'answer') pending.resolve(reply);
      else pending.reject(new Error(reply.message));
      this.armIdle(running);
    });
    const gone = (reason: string): void => {
      // a thread that failed takes its indexes with it; one that ended idle or closed has already left
      if (this.running === running) this.opened.clear();
      this.forget(running, new Error(reason));
    };
    worker.on('error', (err) => gone(`the search thread failed: ${err.message}`));
    worker.on('exit', (code) => gone(`the search thread exited with code ${code}`));
    return running;
  }

  /** Ends the thread `idleMs` from now unless a call comes first (or is still unanswered then). */
  private armIdle(running: Running): void {
    if (this.running !== running || running.pending.size > 0 || !Number.isFinite(this.idleMs)) return;
    this.disarmIdle();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.running !== running || running.pending.size > 0) return;
      this.end(running);
      this.emit('ended');
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private disarmIdle(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
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
    if (this.running === running) {
      this.running = null;
      this.disarmIdle();
    }
    for (const pending of running.pending.values()) pending.reject(reason);
    running.pending.clear();
  }
}
