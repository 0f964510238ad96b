// Imported first by the worker threads that open SQLite files (reader-worker, search-thread-worker).
import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ADDON_LOADED } from './worker-entry.js';

// better-sqlite3 loads its native module on the first `new Database`: load it now, then say so, so that the thread
// is never terminated while the module registers itself (see addonLoaded in worker-entry.ts)
new Database(':memory:').close();
parentPort?.postMessage(ADDON_LOADED);
