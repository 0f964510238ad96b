// A reader thread (pool.ts): runs the jobs the main thread sends through a JobStepper, a step at a time and in
// turn, one step per event-loop turn, so that messages (credit, cancel, new jobs) are heard between steps.
import os from 'node:os';
import '../sqlite-addon.js';
import { parentPort } from 'node:worker_threads';
import type { ReaderReply, ReaderRequest } from './protocol.js';
import { JobStepper } from './stepper.js';

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
const stepper = new JobStepper((reply, transfer = []) => port.postMessage(reply satisfies ReaderReply, transfer));
port.on('message', (request: ReaderRequest) => stepper.receive(request));
port.postMessage({ kind: 'ready' } satisfies ReaderReply);
