// Worker thread of a parallel dimension export (parallel-export.ts): encodes the rowid blocks the main thread
// leaves to it (all but every `cycle`-th) into the slots of a shared buffer and tells the main thread, which
// writes the blocks in order and hands each slot back once it has copied it out (back-pressure: no free slot,
// no encoding).
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { CHUNK_BUFFER_BYTES } from './csv-export-stream.js';
import { BlockEncoder, prepareBlockStatements } from './json-block.js';
import { openExportConnection } from './export-connection.js';
import type { ExportWorkerData, ExportWorkerMessage } from './parallel-export.js';

const data = workerData as ExportWorkerData;
const port = parentPort!;
const send = (message: ExportWorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

let db: Database.Database | null = null;
try {
  db = openExportConnection(data.file);
  // The main thread reads the file it opened; a file swapped in since then is not that one.
  if (fs.statSync(data.file).ino !== data.inode) throw new Error('the tenant file was replaced while the export started');
} catch (err) {
  db?.close();
  db = null;
  send({ kind: 'error', message: (err as Error).message });
}

if (db !== null) {
  const statements = prepareBlockStatements(db, data.sql, data.params);
  const slots = Array.from({ length: data.slots }, (_, i) => Buffer.from(data.shared, i * CHUNK_BUFFER_BYTES, CHUNK_BUFFER_BYTES));
  const free = slots.map((_, i) => i);
  const following = (k: number): number => ((k + 1) % data.cycle === 0 ? k + 2 : k + 1);
  let k = following(-1);
  let encoder: BlockEncoder | null = null;
  const work = (): void => {
    try {
      while (free.length > 0 && k < data.blocks) {
        encoder ??= new BlockEncoder(statements, data.lo + k * data.blockRows, data.lo + (k + 1) * data.blockRows);
        const slot = free.shift()!;
        const { used, done, long, records } = encoder.encodeInto(slots[slot]!);
        let buffer: ArrayBuffer | null = null;
        if (long !== null) {
          buffer = new ArrayBuffer(long.length);
          new Uint8Array(buffer).set(long);
        }
        send({ kind: 'chunk', block: k, last: done, slot, length: used, long: buffer, records }, buffer === null ? [] : [buffer]);
        if (done) {
          encoder = null;
          k = following(k);
        }
      }
    } catch (err) {
      send({ kind: 'error', message: (err as Error).message });
      k = data.blocks;
    }
  };
  port.on('message', (slot: number) => {
    free.push(slot);
    work();
  });
  send({ kind: 'ready' });
  work();
}
