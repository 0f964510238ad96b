import type { Worker } from 'node:worker_threads';
import { MainThreadReaders } from '../reader-threads/main-thread.js';
import { ReaderPool } from '../reader-threads/pool.js';
import { startWorker } from '../worker-entry.js';
import { readerJobs } from './jobs.js';

/**
 * The most a reader thread's young generation may take, MB. A reader keeps a chunk or a slice at a time but
 * allocates a row's values for every row it reads; left to V8, a reader's heap grew to 48-80 MB over three
 * 1,000,000-row exports, and with this bound it stays near 20 MB at the same export time
 * (docs/decisions/0018-node-as-it-comes.md).
 */
const READER_YOUNG_GENERATION_MB = 8;

/** A reader thread running the server's reader jobs (reader-worker.ts). */
export const startReaderThread = (): Worker => startWorker(import.meta.url, 'reader-worker', null, { maxYoungGenerationSizeMb: READER_YOUNG_GENERATION_MB });

/** The readers of READER_THREADS: a pool of reader threads (on), or the main thread in bounded steps (off). */
export function createReaders(threads: boolean): ReaderPool | MainThreadReaders {
  return threads ? new ReaderPool(startReaderThread) : new MainThreadReaders(readerJobs());
}
