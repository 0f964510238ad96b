import type { Worker } from 'node:worker_threads';
import { MainThreadReaders } from '../reader-threads/main-thread.js';
import { ReaderPool } from '../reader-threads/pool.js';
import { startWorker } from '../worker-entry.js';
import { readerJobs } from './jobs.js';

/** A reader thread running the server's reader jobs (reader-worker.ts). */
export const startReaderThread = (): Worker => startWorker(import.meta.url, 'reader-worker', null);

/** The readers of READER_THREADS: a pool of reader threads (on), or the main thread in bounded steps (off). */
export function createReaders(threads: boolean): ReaderPool | MainThreadReaders {
  return threads ? new ReaderPool(startReaderThread) : new MainThreadReaders(readerJobs());
}
