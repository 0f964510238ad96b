import { ReaderPool } from '../../src/reader-threads/pool.js';
import { startWorker } from '../../src/worker-entry.js';

/** A hold on the steps of reader threads: the next step of each blocks its thread until `release`. */
export interface StepHold {
  /** Whether a thread is waiting in a step now. */
  readonly holding: boolean;
  /** Lets every held step go on; later steps are not held. */
  release(): void;
}

/**
 * Reader threads of the server's jobs whose steps a test can hold, as a single long SQLite step holds them
 * (held-reader-worker.ts): it shows that a costly read on a reader thread leaves the main thread free, without
 * depending on how long the read takes.
 */
export function heldReaders(): { pool: ReaderPool; hold(): StepHold } {
  const gate = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  Atomics.store(gate, 0, 1);
  const pool = new ReaderPool(() => startWorker(import.meta.url, 'held-reader-worker', gate));
  return {
    pool,
    hold() {
      Atomics.store(gate, 0, 0);
      return {
        get holding() {
          return Atomics.load(gate, 0) === 0 && Atomics.load(gate, 1) > 0;
        },
        release() {
          Atomics.store(gate, 0, 1);
          Atomics.notify(gate, 0);
        },
      };
    },
  };
}
