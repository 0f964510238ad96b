// Worker thread of the hit reader (hit-reader.ts): reads search hits by id from sidecar files on connections of
// its own and sends each SearchResults body back, its memory transferred. Requests are answered in order.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { HitReaderData, HitReaderReply, HitReaderRequest } from './hit-reader.js';
import { SIDECAR_CACHE_KIB, encodeHitRows, prepareHits } from './sidecar-hits.js';

const port = parentPort!;
const { maxOpen } = workerData as HitReaderData;
/**
 * Connections by the main thread's key of an open sidecar (a file may be opened again under a new key), least
 * recently used first. The main thread releases each when its index closes; beyond `maxOpen` (a release may still
 * be on its way) the least recently used one closes here too, and opens again if a read still wants it.
 */
const open = new Map<number, { db: Database.Database; hits: Database.Statement }>();

const send = (reply: HitReaderReply, transfer: ArrayBuffer[] = []): void => port.postMessage(reply, transfer);

function connection(key: number, file: string): Database.Statement {
  let entry = open.get(key);
  if (entry !== undefined) {
    open.delete(key);
  } else {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma(`cache_size = -${SIDECAR_CACHE_KIB}`);
      entry = { db, hits: prepareHits(db) };
    } catch (err) {
      db.close();
      throw err;
    }
  }
  open.set(key, entry);
  for (const [oldest, { db }] of open) {
    if (open.size <= maxOpen) break;
    db.close();
    open.delete(oldest);
  }
  return entry.hits;
}

port.on('message', (request: HitReaderRequest) => {
  if (request.kind === 'release') {
    open.get(request.key)?.db.close();
    open.delete(request.key);
    return;
  }
  try {
    const body = encodeHitRows(connection(request.key, request.file).all(request.ids) as [number, Buffer][]);
    send({ kind: 'hits', id: request.id, body }, [body.buffer as ArrayBuffer]);
  } catch (err) {
    send({ kind: 'failed', id: request.id, message: (err as Error).message });
  }
});
send({ kind: 'ready' });
