// Worker thread that reads a search sidecar's folded names into typed arrays (name-index.ts) and sends them to
// the main thread kind by kind, transferring the buffers; everything else it allocated goes when it ends.
import '../sqlite-addon.js';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { buildKindNames, toTransfer, type NameWorkerData, type NameWorkerMessage } from './name-index.js';
import { SEARCH_KINDS } from './search-kinds.js';

const port = parentPort!;
const send = (message: NameWorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
let db: Database.Database | null = null;
try {
  db = new Database((workerData as NameWorkerData).file, { readonly: true, fileMustExist: true });
  // the reads are sequential scans: a small page cache keeps this thread's native memory small
  db.pragma('cache_size = -2000');
  for (let rank = 0; rank < SEARCH_KINDS.length; rank++) {
    const names = buildKindNames(db, rank);
    if (names === null) continue;
    const { message, transfer } = toTransfer(rank, names);
    send(message, transfer);
  }
  send({ kind: 'done' });
} catch (err) {
  send({ kind: 'error', message: (err as Error).message });
} finally {
  db?.close();
}
