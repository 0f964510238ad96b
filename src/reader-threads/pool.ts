import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { addonLoaded } from '../worker-entry.js';
import type { JobReply, ReaderEnd, ReaderJob, ReaderReply, ReaderRequest, Readers, RunningJob } from './protocol.js';
import { Waiters } from './waiters.js';

// Reads of a tenant file whose cost grows with the table (exports, explain's counts) run on reader threads with
// READER_THREADS=on, so that the main thread only forwards their results: better-sqlite3 is synchronous, and one
// SQLite step that matches nothing, or sorts, can take seconds. A thread takes any number of jobs and steps them in
// turn (serve-jobs.ts); a job waiting for its client costs the thread nothing. Threads start on demand and end
// when idle, so an idle server holds none (a thread with better-sqlite3 loaded costs ~20 MB).

/**
 * Reader threads at most: half the cores the process may use, at least one and at most two (one on two cores).
 * Each busy reader takes a core's worth of time the main thread may then wait for, niced or not: on the 2-core
 * bench machine, shared with other test runs, /health p99 while two clients repeated costly reads was 48 ms with
 * one thread and 105 ms with two (medians of 10 alternating runs each, explains and sorted exports).
 */
export const DEFAULT_READER_THREADS = Math.max(1, Math.min(2, Math.floor(os.availableParallelism() / 2)));
/** A thread without a job for this long ends; the next job starts one again. */
export const READER_IDLE_MS = 30_000;

class ReaderThread {
  ready = false;
  ended = false;
  /** Requests sent before the thread was ready, in order, with what each transfers. */
  readonly backlog: [ReaderRequest, ArrayBuffer[]][] = [];
  /** Jobs on this thread and who hears their replies. */
  readonly jobs = new Map<number, (reply: JobReply) => void>();
  idleTimer: NodeJS.Timeout | null = null;

  /** Resolves once the thread has loaded SQLite's native module (or ended): it is terminated only after that. */
  readonly loaded: Promise<void>;

  constructor(readonly worker: Worker) {
    this.loaded = addonLoaded(worker);
  }

  post(request: ReaderRequest, transfer: ArrayBuffer[] = []): void {
    if (this.ready) this.worker.postMessage(request, transfer);
    else this.backlog.push([request, transfer]);
  }
}

/**
 * At most `maxThreads` reader threads, each started by `startThread` (a worker that runs `serveReaderJobs`) on
 * demand and ended after `idleMs` without a job.
 */
export class ReaderPool implements Readers {
  private readonly threads: ReaderThread[] = [];
  private readonly noJobs = new Waiters();
  private readonly noThreads = new Waiters();
  private nextId = 1;
  private closed = false;
  /** Threads started since the pool was made (tests). */
  started = 0;

  constructor(
    private readonly startThread: () => Worker,
    readonly maxThreads: number = DEFAULT_READER_THREADS,
    readonly idleMs: number = READER_IDLE_MS,
  ) {}

  /** Threads running now (starting, busy or idle). */
  get threadCount(): number {
    return this.threads.length;
  }

  /** Jobs not yet over, over all threads. */
  get jobCount(): number {
    return this.threads.reduce((sum, thread) => sum + thread.jobs.size, 0);
  }

  settled(): Promise<void> {
    return this.jobCount === 0 ? Promise.resolve() : this.noJobs.wait();
  }

  /** Resolves once no thread runs (tests: idle threads end). */
  threadsEnded(): Promise<void> {
    return this.threadCount === 0 ? Promise.resolve() : this.noThreads.wait();
  }

  /**
   * Sends `job` to the thread with the fewest jobs, or to a new one while there are fewer than maxThreads and
   * every thread has one. `onReply` hears every reply of the job; the last is final, also when the thread fails
   * (`failed`). Throws when no thread can be started.
   */
  run<R extends JobReply>(job: ReaderJob, onReply: (reply: R | ReaderEnd) => void): RunningJob {
    if (this.closed) throw new Error('the reader threads are closed');
    const id = this.nextId++;
    const thread = this.choose();
    if (thread.idleTimer !== null) clearTimeout(thread.idleTimer);
    thread.idleTimer = null;
    if (thread.jobs.size === 0) thread.worker.ref(); // a job in flight keeps the process alive
    thread.jobs.set(id, onReply as (reply: JobReply) => void);
    thread.post({ kind: 'job', id, job });
    return {
      send: (control) => {
        if (thread.jobs.has(id)) thread.post({ ...control, id }, control.kind === 'credit' && control.bytes !== undefined ? [control.bytes] : []);
      },
    };
  }

  /** Ends every thread; jobs not over fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.threads].map((thread) => this.end(thread, new Error('the reader threads are closed'))));
  }

  private choose(): ReaderThread {
    let least: ReaderThread | null = null;
    for (const thread of this.threads) if (least === null || thread.jobs.size < least.jobs.size) least = thread;
    if (least !== null && (least.jobs.size === 0 || this.threads.length >= this.maxThreads)) return least;
    return this.start();
  }

  private start(): ReaderThread {
    const thread = new ReaderThread(this.startThread());
    this.threads.push(thread);
    this.started += 1;
    thread.worker.on('message', (reply: ReaderReply) => this.receive(thread, reply));
    thread.worker.on('error', (err) => void this.end(thread, err));
    thread.worker.on('exit', (code) => void this.end(thread, new Error(`a reader thread exited with code ${code}`)));
    return thread;
  }

  private receive(thread: ReaderThread, reply: ReaderReply): void {
    if (reply.kind === 'addon-loaded') return;
    if (reply.kind === 'ready') {
      thread.ready = true;
      for (const [request, transfer] of thread.backlog.splice(0)) thread.worker.postMessage(request, transfer);
      return;
    }
    const jobReply = reply as JobReply;
    const onReply = thread.jobs.get(jobReply.id);
    if (onReply === undefined) return;
    if (jobReply.final) {
      thread.jobs.delete(jobReply.id);
      if (thread.jobs.size === 0) this.idle(thread);
    }
    onReply(jobReply);
    if (this.jobCount === 0) this.noJobs.wake();
  }

  private idle(thread: ReaderThread): void {
    thread.worker.unref();
    thread.idleTimer = setTimeout(() => {
      thread.idleTimer = null;
      if (thread.jobs.size === 0) void this.end(thread, null);
    }, this.idleMs);
    thread.idleTimer.unref();
  }

  /** Takes the thread out of the pool and terminates it; its jobs fail with `err` (an idle thread has none). */
  private async end(thread: ReaderThread, err: Error | null): Promise<void> {
    if (thread.ended) return;
    thread.ended = true;
    const at = this.threads.indexOf(thread);
    if (at >= 0) this.threads.splice(at, 1);
    if (thread.idleTimer !== null) clearTimeout(thread.idleTimer);
    const jobs = [...thread.jobs];
    thread.jobs.clear();
    const message = err?.message ?? 'the reader thread ended';
    for (const [id, onReply] of jobs) {
      const failed: ReaderEnd = { kind: 'failed', id, final: true, message };
      onReply(failed);
    }
    if (this.jobCount === 0) this.noJobs.wake();
    if (this.threads.length === 0) this.noThreads.wake();
    await thread.loaded;
    await thread.worker.terminate();
  }
}
