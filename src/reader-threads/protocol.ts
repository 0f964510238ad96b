// What passes between the main thread and a reader. The readers know no job of their own: each job is a `kind` with
// a spec that the readers' JobMaker (src/reader-jobs/) turns into a SteppedJob, and replies that end with a final
// one.

/** Work for a reader: `kind` names the job among those its JobMaker makes; the rest is the job's spec, structured-cloned to a reader thread. */
export interface ReaderJob {
  readonly kind: string;
}

/** What a job says about itself; the last reply of every job is `final`. */
export interface JobReply {
  readonly kind: string;
  readonly id: number;
  readonly final: boolean;
}

/** The final replies the readers send for a job themselves: it failed (a step threw, or its thread ended), or it was cancelled. */
export type ReaderEnd = { kind: 'failed'; id: number; final: true; message: string } | { kind: 'cancelled'; id: number; final: true };

/**
 * Word about a job already sent: the main thread is done with one of its chunks (it may make one more; `bytes`, when
 * given, is that chunk's buffer, transferred back for the job to fill again), or no longer wants it.
 */
export type JobControl = { kind: 'credit'; bytes?: ArrayBuffer } | { kind: 'cancel' };

/** What the main thread sends a reader: a job under its id, or word about a job already sent. */
export type ReaderRequest = { kind: 'job'; id: number; job: ReaderJob } | (JobControl & { id: number });

/** What a reader thread sends: that it is ready for jobs, that SQLite's module is loaded, or a reply about a job. */
export type ReaderReply = { kind: 'ready' } | { kind: 'addon-loaded' } | JobReply;

/** How a job's replies leave (a chunk's bytes travel in `transfer`). */
export type SendReply = <R extends JobReply>(reply: R, transfer?: ArrayBuffer[]) => void;

/** A job on a reader, stepped in turn with the others. */
export interface SteppedJob {
  /** Whether a step would do something now (an export without credit waits). */
  readonly runnable: boolean;
  /** True once the job sent its final reply. */
  readonly over: boolean;
  /** Does a bounded part of the work; sends replies, the final one last. */
  step(): void;
  /** The main thread is done with one of the job's chunks; `bytes` is its buffer, given back, when it can be filled again. */
  credit(bytes?: ArrayBuffer): void;
  /** Stops and frees what the job holds (no reply). */
  close(): void;
}

/** The jobs a reader runs: the job `id` of `job`, sending its replies through `send`; throws for a kind it does not know. */
export type JobMaker = (id: number, job: ReaderJob, send: SendReply) => SteppedJob;

/** A job handed to the readers: the main thread's side of it. */
export interface RunningJob {
  /** Sends word about the job (a credit's `bytes` are transferred); nothing once it is over. */
  send(control: JobControl): void;
}

/**
 * Where reads that grow with a table run (READER_THREADS): on reader threads (pool.ts), or on the main thread in
 * bounded steps (main-thread.ts). Either steps any number of jobs in turn, one bounded step at a time.
 */
export interface Readers {
  /** Starts `job`; `onReply` hears every reply of it, the final one last, also when the reader fails (`R`: the job's own replies). */
  run<R extends JobReply>(job: ReaderJob, onReply: (reply: R | ReaderEnd) => void): RunningJob;
  /** Jobs not yet over. */
  readonly jobCount: number;
  /** Resolves once no job is left (at once when none is). */
  settled(): Promise<void>;
}
