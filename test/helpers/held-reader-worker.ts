// A reader thread of the server's reader jobs whose steps a test can hold (held-readers.ts): before each step it
// waits while the gate it was given is closed, as a single long SQLite step would hold it.
import '../../src/sqlite-addon.js';
import { parentPort, workerData } from 'node:worker_threads';
import { readerJobs } from '../../src/reader-jobs/jobs.js';
import { serveReaderJobs } from '../../src/reader-threads/serve-jobs.js';

/** [0]: 0 while the gate is closed, 1 once open; [1]: steps waiting at it. */
const gate = workerData as Int32Array;

serveReaderJobs(parentPort!, readerJobs(), () => {
  if (Atomics.load(gate, 0) !== 0) return;
  Atomics.add(gate, 1, 1);
  Atomics.wait(gate, 0, 0);
  Atomics.sub(gate, 1, 1);
});
