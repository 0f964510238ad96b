import { FINAL_REPLIES, type JobReply, type ReaderJob, type Readers, type RunningJob } from './protocol.js';
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
  private readonly stepper = new JobStepper((reply) => queueMicrotask(() => this.deliver(reply)));
  private readonly noJobs = new Waiters();
  private nextId = 1;

  get jobCount(): number {
    return this.listeners.size;
  }

  settled(): Promise<void> {
    return this.jobCount === 0 ? Promise.resolve() : this.noJobs.wait();
  }

  run(job: ReaderJob, onReply: (reply: JobReply) => void): RunningJob {
    const id = this.nextId++;
    this.listeners.set(id, onReply);
    this.stepper.receive({ ...job, id });
    return {
      send: (control) => {
        if (this.listeners.has(id)) this.stepper.receive({ ...control, id });
      },
    };
  }

  private deliver(reply: JobReply): void {
    const onReply = this.listeners.get(reply.id);
    if (onReply === undefined) return;
    if (FINAL_REPLIES.has(reply.kind)) this.listeners.delete(reply.id);
    onReply(reply);
    if (this.jobCount === 0) this.noJobs.wake();
  }
}
