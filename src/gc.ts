import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The options of V8's `gc()`: `flavor: 'last-resort'` is the collection V8 runs under memory pressure. */
export interface CollectionOptions {
  type?: 'major' | 'minor';
  execution?: 'sync' | 'async';
  flavor?: 'regular' | 'last-resort';
}

/** V8's garbage collection as a function, taken without exposing it to any other code (as test runners do). */
export function v8Collection(): (options?: CollectionOptions) => void {
  v8.setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as (options?: CollectionOptions) => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
