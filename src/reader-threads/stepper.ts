import type { JobMaker, ReaderRequest, SendReply, SteppedJob } from './protocol.js';

// The jobs of one reader, stepped in turn, one step per event-loop turn, so that requests (credit, cancel, new jobs)
// and, on the main thread, everything else are heard between steps. A step is bounded by its job (a chunk of an
// export, a slice of an explain's counts); a job without credit waits without a turn.

/** Steps the jobs of one reader (a reader thread, or the main thread), made by `makeJob`. */
export class JobStepper {
  /** Jobs in the order they came. */
  private readonly jobs = new Map<number, SteppedJob>();
  private lastStepped = 0;
  private scheduled = false;

  constructor(
    private readonly makeJob: JobMaker,
    private readonly send: SendReply,
    /** Called before every step (a test holds a reader thread there, as a long SQLite step would). */
    private readonly beforeStep: () => void = () => {},
  ) {}

  /** Takes a request of the main thread: a new job, credit for one (maybe with a buffer given back), or its cancellation. */
  receive(request: ReaderRequest): void {
    const { id } = request;
    if (request.kind === 'job') {
      try {
        this.jobs.set(id, this.makeJob(id, request.job, this.send));
      } catch (err) {
        this.send(failed(id, (err as Error).message));
        return;
      }
    } else if (request.kind === 'credit') {
      this.jobs.get(id)?.credit(request.bytes);
    } else {
      const job = this.jobs.get(id);
      if (job === undefined) return;
      this.jobs.delete(id);
      job.close();
      this.send({ kind: 'cancelled', id, final: true });
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
      if (!answered) this.send(failed(id, (err as Error).message));
      this.jobs.delete(id);
    }
    if (job.over) this.jobs.delete(id);
    this.schedule();
  }
}

/** The final reply of a job whose step threw. */
const failed = (id: number, message: string) => ({ kind: 'failed', id, final: true, message }) as const;
