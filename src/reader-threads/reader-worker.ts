// A reader thread (pool.ts): runs the jobs the main thread sends, a step at a time and in turn, one step per
// event-loop turn, so that messages (credit, cancel, new jobs) are heard between steps. A step is one chunk of an
// export, a slice of its truncation probe, or one explain; a job without credit waits without a turn.
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { ExportJob } from '../dimensions/export-job.js';
import { explainFile } from '../lineage/explain.js';
import type { JobReply, ReaderReply, ReaderRequest } from './protocol.js';

/** A job on this thread. */
export interface SteppedJob {
  /** Whether a step would do something now (an export without credit waits). */
  readonly runnable: boolean;
  /** True once the job sent its final reply. */
  readonly over: boolean;
  /** Does a bounded part of the work; sends replies, the final one last. */
  step(): void;
  /** Slot `slot` of the job's chunk buffer is free again. */
  credit(slot: number): void;
  /** Stops and frees what the job holds (no reply). */
  close(): void;
}

/**
 * Nice value of a reader thread. On Linux a thread's nice value is its own (setpriority on the calling thread), so
 * the main thread, at the default 0, gets the core first whenever both want it: about nine tenths of it under
 * contention (CFS weights 1024 and 110), even on a machine with one core. Elsewhere it would be the process's.
 */
const READER_NICE = 10;
if (process.platform === 'linux') {
  try {
    os.setPriority(READER_NICE);
  } catch {
    // a thread that may not lower its own priority reads at the default one
  }
}

const port = parentPort!;
const send = (reply: JobReply, transfer: ArrayBuffer[] = []): void => port.postMessage(reply satisfies ReaderReply, transfer);

/** Jobs in the order they came; stepped in turn. */
const jobs = new Map<number, SteppedJob>();
let lastStepped = 0;
let scheduled = false;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(turn);
}

/** One step of the first runnable job after the one stepped last. */
function turn(): void {
  scheduled = false;
  const ids = [...jobs.keys()];
  const from = ids.findIndex((id) => id > lastStepped);
  const ordered = from < 0 ? ids : [...ids.slice(from), ...ids.slice(0, from)];
  const id = ordered.find((candidate) => jobs.get(candidate)!.runnable);
  if (id === undefined) return;
  lastStepped = id;
  const job = jobs.get(id)!;
  try {
    job.step();
  } catch (err) {
    const answered = job.over;
    job.close();
    if (!answered) send({ kind: 'failed', id, message: (err as Error).message });
    jobs.delete(id);
  }
  if (job.over) jobs.delete(id);
  schedule();
}

function explainJob(id: number, request: Extract<ReaderRequest, { kind: 'explain' }>): SteppedJob {
  let over = false;
  return {
    get runnable() {
      return !over;
    },
    get over() {
      return over;
    },
    step() {
      const groups = explainFile(request.file, request.query);
      over = true;
      send({ kind: 'explained', id, groups });
    },
    credit() {},
    close() {
      over = true;
    },
  };
}

port.on('message', (request: ReaderRequest) => {
  const { id } = request;
  if (request.kind === 'export') {
    jobs.set(id, new ExportJob(id, request.spec, send));
  } else if (request.kind === 'explain') {
    jobs.set(id, explainJob(id, request));
  } else if (request.kind === 'credit') {
    jobs.get(id)?.credit(request.slot);
  } else {
    const job = jobs.get(id);
    if (job === undefined) return;
    jobs.delete(id);
    job.close();
    send({ kind: 'cancelled', id });
  }
  schedule();
});
port.postMessage({ kind: 'ready' } satisfies ReaderReply);
