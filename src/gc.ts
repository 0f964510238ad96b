import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The options of V8's `gc()`: `flavor: 'last-resort'` is the collection V8 runs under memory pressure. */
export interface CollectionOptions {
  type?: 'major' | 'minor';
  execution?: 'sync' | 'async';
  flavor?: 'regular' | 'last-resort';
}

/** How often `v8Collection` tries before it gives up. */
const ATTEMPTS = 1000;

/**
 * V8's garbage collection as a function, taken without exposing it to any other code (as test runners do). V8's
 * flags belong to the process: another thread taking its own may turn `--expose-gc` off between the two steps
 * here, so a context made without `gc` is made again.
 */
export function v8Collection(): (options?: CollectionOptions) => void {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    v8.setFlagsFromString('--expose-gc');
    try {
      const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as ((options?: CollectionOptions) => void) | undefined;
      if (gc !== undefined) return gc;
    } finally {
      v8.setFlagsFromString('--no-expose-gc');
    }
  }
  throw new Error(`V8's gc() was not exposed in ${ATTEMPTS} attempts`);
}
