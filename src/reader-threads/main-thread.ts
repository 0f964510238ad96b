import type { JobMaker, JobReply, ReaderEnd, ReaderJob, Readers, RunningJob } from './protocol.js';
import { JobStepper } from './stepper.js';
import { Waiters } from './waiters.js';

/**
 * The readers with READER_THREADS=off: the jobs run on the main thread, stepped in turn, one bounded step per
 * event-loop turn (a chunk of an export, a slice of its truncation probe or of an explain's counts), with other
 * requests served between steps. A single SQLite step is not cut: the first row of a sort, or an index walk that
 * finds nothing, holds the main thread for its whole length. Replies reach their listener in a microtask of their
 * own, as a reader thread's messages would, never inside the step that sent them.
 */
export class MainThreadReaders implements Readers {
  private readonly listeners = new Map<number, (reply: JobReply) => void>();
  private readonly stepper: JobStepper;
  private readonly noJobs = new Waiters();
  private nextId = 1;

  constructor(makeJob: JobMaker) {
    this.stepper = new JobStepper(makeJob, (reply) => queueMicrotask(() => this.deliver(reply)));
  }

  get jobCount(): number {
    return this.listeners.size;
  }

  settled(): Promise<void> {
    return this.jobCount === 0 ? Promise.resolve() : this.noJobs.wait();
  }

  run<R extends JobReply>(job: ReaderJob, onReply: (reply: R | ReaderEnd) => void): RunningJob {
    const id = this.nextId++;
    this.listeners.set(id, onReply as (reply: JobReply) => void);
    this.stepper.receive({ kind: 'job', id, job });
    return {
      send: (control) => {
        if (this.listeners.has(id)) this.stepper.receive({ ...control, id });
      },
    };
  }

  /** Closes every job not over (no reply). */
  async close(): Promise<void> {
    this.stepper.close();
    this.listeners.clear();
    this.noJobs.wake();
  }

  private deliver(reply: JobReply): void {
    const onReply = this.listeners.get(reply.id);
    if (onReply === undefined) return;
    if (reply.final) this.listeners.delete(reply.id);
    onReply(reply);
    if (this.jobCount === 0) this.noJobs.wake();
  }
}
