// A reader thread (src/reader-threads/pool.ts): runs the server's reader jobs (jobs.ts) that the main thread sends.
import os from 'node:os';
import '../sqlite-addon.js';
import { parentPort } from 'node:worker_threads';
import { serveReaderJobs } from '../reader-threads/serve-jobs.js';
import { readerJobs } from './jobs.js';

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

serveReaderJobs(parentPort!, readerJobs());
