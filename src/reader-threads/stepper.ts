import { CHUNK_BUFFER_BYTES } from '../dimensions/csv-chunks.js';
import { ExportJob } from '../dimensions/export-job.js';
import { ExplainJob } from '../lineage/explain-job.js';
import type { JobReply, ReaderRequest } from './protocol.js';

// The jobs of one reader, stepped in turn, one step per event-loop turn, so that requests (credit, cancel, new jobs)
// and, on the main thread, everything else are heard between steps. A step is one chunk of an export, a slice of
// its truncation probe, or a slice of an explain's counts; a job without credit waits without a turn.

/** A job of a reader. */
export interface SteppedJob {
  /** Whether a step would do something now (an export without credit waits). */
  readonly runnable: boolean;
  /** True once the job sent its final reply. */
  readonly over: boolean;
  /** Does a bounded part of the work; sends replies, the final one last. */
  step(): void;
  /** The main thread took one of the job's chunks. */
  credit(): void;
  /** Stops and frees what the job holds (no reply). */
  close(): void;
}

/** How a job's replies leave (a chunk's bytes travel in `transfer`). */
export type SendReply = (reply: JobReply, transfer?: ArrayBuffer[]) => void;

export class JobStepper {
  /** Jobs in the order they came. */
  private readonly jobs = new Map<number, SteppedJob>();
  private lastStepped = 0;
  private scheduled = false;
  /**
   * The buffer every export job of this reader encodes its chunks into, made at its first export: the reader steps
   * one job at a time and each step copies its chunk out, so its jobs share one instead of allocating about 256 KiB
   * of native memory each (docs/decisions/0016-memory.md).
   */
  private chunkTarget: Buffer | null = null;

  constructor(
    private readonly send: SendReply,
    /** Called after every step (a reader thread collects its garbage there). */
    private readonly afterStep: () => void = () => {},
    /** Called before every step (a reader thread waits there at a test's gate). */
    private readonly beforeStep: () => void = () => {},
  ) {}

  /** Takes a request of the main thread: a new job, credit for one, or its cancellation. */
  receive(request: ReaderRequest): void {
    const { id } = request;
    if (request.kind === 'export') {
      this.chunkTarget ??= Buffer.allocUnsafeSlow(CHUNK_BUFFER_BYTES);
      this.jobs.set(id, new ExportJob(id, request.spec, this.send, this.chunkTarget));
    } else if (request.kind === 'explain') {
      this.jobs.set(id, new ExplainJob(id, request.file, request.query, this.send));
    } else if (request.kind === 'credit') {
      this.jobs.get(id)?.credit();
    } else {
      const job = this.jobs.get(id);
      if (job === undefined) return;
      this.jobs.delete(id);
      job.close();
      this.send({ kind: 'cancelled', id });
    }
    this.schedule();
  }

  /** Closes every job (no reply). */
  close(): void {
    for (const job of this.jobs.values()) job.close();
    this.jobs.clear();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  /** One step of the first runnable job after the one stepped last. */
  private turn(): void {
    this.scheduled = false;
    const ids = [...this.jobs.keys()];
    const from = ids.findIndex((id) => id > this.lastStepped);
    const ordered = from < 0 ? ids : [...ids.slice(from), ...ids.slice(0, from)];
    const id = ordered.find((candidate) => this.jobs.get(candidate)!.runnable);
    if (id === undefined) return;
    this.lastStepped = id;
    const job = this.jobs.get(id)!;
    this.beforeStep();
    try {
      job.step();
    } catch (err) {
      const answered = job.over;
      job.close();
      if (!answered) this.send({ kind: 'failed', id, message: (err as Error).message });
      this.jobs.delete(id);
    }
    if (job.over) this.jobs.delete(id);
    this.afterStep();
    this.schedule();
  }
}
