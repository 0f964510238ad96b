import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker-entry.js';
import type { DefinitionContent } from './definition-content.js';
import { LIMITS } from './definition-rules.js';

/** Bounds of the definition parser's thread. */
export interface ParserLimits {
  /** Longest one text may take in the thread; past it the thread is ended and the text is too costly. */
  timeoutMs: number;
  /** Longest the thread may take to start, up to its ready message. */
  startTimeoutMs: number;
  /** The thread ends after this long without a text, and starts again with the next one. */
  idleMs: number;
  /** V8 old generation of the thread, in MB: a text that needs more is too costly. */
  oldGenerationMb: number;
  /** V8 young generation of the thread, in MB. */
  youngGenerationMb: number;
}

/**
 * The limits the server runs with. The slowest text within the size limit takes about 300 ms in a new thread and
 * 60-100 ms in a warm one on a two-core machine busy with other work
 * (docs/decisions/0010-definition-yaml-off-the-main-thread.md): the time limit is a safety net far above that,
 * not the bound a caller meets.
 */
export const PARSER_LIMITS: ParserLimits = { timeoutMs: 2000, startTimeoutMs: 30_000, idleMs: 30_000, oldGenerationMb: 64, youngGenerationMb: 4 };

/**
 * Calls `expire` once `ms` have passed, unless the returned cancel is called first; `expire` is never called
 * within the call itself. The parser's time limit runs on it: a timer by default, a test's own clock otherwise.
 */
export type Deadline = (ms: number, expire: () => void) => () => void;

/** The deadline of a timer. */
export const TIMER_DEADLINE: Deadline = (ms, expire) => {
  const timer = setTimeout(expire, ms);
  return () => clearTimeout(timer);
};

/** What the main thread sends the thread. */
export interface ParserRequest {
  id: number;
  text: string;
}

/** What the thread answers. */
export type ParserReply = { kind: 'ready' } | { kind: 'content'; id: number; content: DefinitionContent };

interface Pending {
  id: number;
  /** Answers the caller: the content, or an error to reject with. */
  settle(answer: DefinitionContent | Error): void;
}

/**
 * Parses definition YAML in a worker thread, one text at a time in order of arrival, so that no definition text
 * is parsed on the server's main thread: the `yaml` package needs tens of milliseconds for a few kilobytes of
 * some shapes. A text that takes longer than `timeoutMs`, or that breaks the thread (out of memory), ends the
 * thread and is answered as too costly; the next text starts a new one. The thread starts with the first text and
 * ends after `idleMs` without one.
 */
export class DefinitionParser {
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private starting: { resolve(worker: Worker): void; reject(err: Error): void } | null = null;
  private pending: Pending | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | null = null;
  private nextId = 0;
  private closed = false;
  /** Threads started so far (tests). */
  starts = 0;
  /** Texts the thread has answered (tests). */
  parses = 0;

  constructor(
    private readonly limits: ParserLimits = PARSER_LIMITS,
    private readonly deadline: Deadline = TIMER_DEADLINE,
  ) {}

  /** The content of `text`, in turn with other callers; rejects only when the thread cannot start or is closed. */
  parse(text: string): Promise<DefinitionContent> {
    const run = this.queue.then(() => this.send(text));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Whether the thread exists now (starting or ready). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Ends the thread; later texts are refused. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.worker !== null) await this.end(this.worker, new Error('the definition parser is closed'), new Error('the definition parser is closed'));
  }

  private async send(text: string): Promise<DefinitionContent> {
    if (this.closed) throw new Error('the definition parser is closed');
    // not worth a message: the thread would refuse it before parsing
    if (text.length > LIMITS.yamlChars) return { ok: false, error: `the YAML text is larger than ${LIMITS.yamlChars} characters` };
    const worker = await this.started();
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const id = this.nextId++;
    try {
      return await new Promise<DefinitionContent>((resolve, reject) => {
        const timeoutMs = this.limits.timeoutMs;
        const cancel = this.deadline(timeoutMs, () => {
          const tooCostly = { ok: false, error: `the YAML text took longer than ${timeoutMs} ms to parse (too costly)` } as const;
          void this.end(worker, new Error('the definition parser was ended'), tooCostly);
        });
        this.pending = {
          id,
          settle: (answer) => {
            cancel();
            if (answer instanceof Error) reject(answer);
            else resolve(answer);
          },
        };
        worker.postMessage({ id, text } satisfies ParserRequest);
      });
    } finally {
      this.scheduleIdle();
    }
  }

  private started(): Promise<Worker> {
    if (this.ready !== null) return this.ready;
    this.starts++;
    const worker = startWorker(import.meta.url, 'definition-parser-worker', null, {
      maxOldGenerationSizeMb: this.limits.oldGenerationMb,
      maxYoungGenerationSizeMb: this.limits.youngGenerationMb,
    });
    this.worker = worker;
    worker.unref();
    worker.on('message', (reply: ParserReply) => this.receive(worker, reply));
    worker.on('error', (err) => void this.end(worker, err, brokenBy(err)));
    worker.on('exit', (code) => {
      const err = new Error(`the definition parser exited with code ${code}`);
      void this.end(worker, err, brokenBy(err));
    });
    this.ready = new Promise<Worker>((resolve, reject) => {
      const timer = setTimeout(() => {
        const err = new Error(`the definition parser did not start within ${this.limits.startTimeoutMs} ms`);
        void this.end(worker, err, err);
      }, this.limits.startTimeoutMs);
      this.starting = {
        resolve: (started) => { clearTimeout(timer); resolve(started); },
        reject: (err) => { clearTimeout(timer); reject(err); },
      };
    });
    return this.ready;
  }

  private receive(worker: Worker, reply: ParserReply): void {
    if (worker !== this.worker) return;
    if (reply.kind === 'ready') {
      this.starting?.resolve(worker);
      this.starting = null;
      return;
    }
    const pending = this.pending;
    if (pending === null || pending.id !== reply.id) return;
    this.pending = null;
    this.parses++;
    pending.settle(reply.content);
  }

  private scheduleIdle(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.worker !== null && this.pending === null) void this.end(this.worker, new Error('the definition parser was idle'), new Error('the definition parser was idle'));
    }, this.limits.idleMs);
    this.idleTimer.unref();
  }

  /** Ends `worker` if it is still the current thread: a start waiting fails with `err`, a text in flight gets `answer`. */
  private async end(worker: Worker, err: Error, answer: DefinitionContent | Error): Promise<void> {
    if (worker !== this.worker) return;
    this.worker = null;
    this.ready = null;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.starting?.reject(err);
    this.starting = null;
    this.pending?.settle(answer);
    this.pending = null;
    await worker.terminate();
  }
}

/** The answer for a text in flight when the thread broke: the text made it break (out of memory, most likely). */
function brokenBy(err: Error): DefinitionContent {
  return { ok: false, error: `the YAML text could not be parsed within the parser's bounds (too costly): ${err.message}` };
}
