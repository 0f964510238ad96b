// A reader thread (pool.ts): runs the jobs the main thread sends through a JobStepper, a step at a time and in
// turn, one step per event-loop turn, so that messages (credit, cancel, new jobs) are heard between steps.
import os from 'node:os';
import '../sqlite-addon.js';
import { parentPort } from 'node:worker_threads';
import { blockBytesRead } from '../dimensions/json-block.js';
import { v8Collection } from '../gc.js';
import type { ReaderReply, ThreadRequest } from './protocol.js';
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

/**
 * Bytes of a block's JSON lines read between two young-generation collections. Each block arrives as a Buffer
 * (about 0.8 MB for 4,096 rows) whose memory V8 frees only when a collection finds it dead, and a reader thread
 * allocates almost nothing else: without a collection of its own, about 35 MB of dead blocks stayed in memory
 * during a 1,000,000-row export (docs/decisions/0009). A young-generation collection of a reader's small heap
 * takes about 0.1 ms.
 */
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;

const gc = v8Collection();
const collect = (): void => gc({ type: 'minor' });
let collectedAt = 0;

/** A test's gate (`ReaderPool.holdSteps`): the next step blocks this thread at it, as a long SQLite step would. */
let gate: Int32Array | null = null;
function waitAtGate(): void {
  if (gate === null) return;
  if (Atomics.load(gate, 0) === 0) {
    Atomics.add(gate, 1, 1);
    Atomics.wait(gate, 0, 0);
    Atomics.sub(gate, 1, 1);
  }
  gate = null;
}

const port = parentPort!;
const stepper = new JobStepper(
  (reply, transfer = []) => port.postMessage(reply satisfies ReaderReply, transfer),
  () => {
    if (blockBytesRead() - collectedAt < COLLECT_EVERY_BYTES) return;
    collectedAt = blockBytesRead();
    collect();
  },
  waitAtGate,
);
port.on('message', (request: ThreadRequest) => {
  if (request.kind === 'hold') gate = request.gate;
  else stepper.receive(request);
});
port.postMessage({ kind: 'ready' } satisfies ReaderReply);
