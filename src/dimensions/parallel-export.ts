import type { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { CHUNK_BUFFER_BYTES, encodeSomeWith, WAIT, type CsvChunks } from './csv-export-stream.js';
import type { DimensionTable } from './dimension-table.js';
import { countRowsUpTo, rowidAddressable, rowidRange } from './export-connection.js';
import { filterConditions, type SqlStatement } from './export-sql.js';
import { BlockEncoder, blockSql, prepareBlockStatements } from './json-block.js';
import type { ExportOptions } from './export-options.js';
import { startWorker } from '../worker-entry.js';

// A large unsorted export is encoded on two threads: the table's rowid range is cut into blocks of BLOCK_ROWIDS
// rowids; the main thread encodes every BLOCK_CYCLE-th block (it also writes the response) and one worker thread
// the others, and the stream writes the blocks in rowid order, which is table order. One worker is what fits the memory budget (a worker thread with
// better-sqlite3 loaded costs ~20 MB of RSS), so one such export runs at a time; others are encoded on the main
// thread as before.

/** Rowids per block. */
const BLOCK_ROWIDS = 4096;
/** Tables with fewer rows are not worth a worker's start (~30 ms). */
export const PARALLEL_MIN_ROWS = 20_000;
/** The most blocks a parallel export walks (a rowid span of 4,194,304: four rowids per row at the row cap). */
const MAX_BLOCKS = 1024;
/** The main thread encodes one block in BLOCK_CYCLE (it also writes the response), the worker the others. */
const BLOCK_CYCLE = 2;
/** Slots of the buffer the worker encodes into (each CHUNK_BUFFER_BYTES): chunks it may be ahead by. */
const WORKER_SLOTS = 4;
/** How long a worker may take to open the file before the export goes on without it. */
const WORKER_START_TIMEOUT_MS = 5_000;
/** V8 young generation of the worker, in MB: its garbage is short-lived. */
const WORKER_YOUNG_MB = 4;

/** What the worker is given (structured-cloned). */
export interface ExportWorkerData {
  file: string;
  inode: number;
  /** One block's rows and JSON lines: `rowid >= ? AND rowid < ?` plus the filters, in rowid order (blockSql). */
  sql: { rows: string; json: string };
  params: SqlStatement['params'];
  lo: number;
  blockRows: number;
  blocks: number;
  /** The main thread encodes blocks k with k % cycle === 0, the worker all others. */
  cycle: number;
  /** WORKER_SLOTS slots of CHUNK_BUFFER_BYTES each. */
  shared: SharedArrayBuffer;
  slots: number;
}

/** What the worker sends. */
export type ExportWorkerMessage =
  | { kind: 'ready' }
  /** `length` bytes in slot `slot`, then `long` (a record too long for the slot) when there is one; `records` in all. */
  | { kind: 'chunk'; block: number; last: boolean; slot: number; length: number; long: ArrayBuffer | null; records: number }
  | { kind: 'error'; message: string };

/** The blocks of a parallel export, or the reason it runs on the main thread alone. */
export interface ParallelPlan {
  lo: number;
  blocks: number;
}

let running = false;
let started = 0;

/** How many exports have been encoded on two threads since the process started (the tests read it). */
export const parallelExportsStarted = (): number => started;

/**
 * Whether this export can be encoded on two threads: no `sort` (rows in table order, which is rowid order for
 * a rowid table), not cut at the row cap, a rowid table no column shadows the rowid of, at least
 * PARALLEL_MIN_ROWS rows, a rowid span of at most MAX_BLOCKS blocks (an empty block costs one b-tree seek), and
 * no other parallel export running. Reads at most PARALLEL_MIN_ROWS rows to decide.
 */
export function planParallelExport(db: Database.Database, table: DimensionTable, options: ExportOptions, truncated: boolean): ParallelPlan | null {
  if (running || truncated || options.sort !== undefined || !rowidAddressable(table)) return null;
  const range = rowidRange(db, table);
  if (range === null) return null;
  const { lo, hi } = range;
  if (lo < BigInt(Number.MIN_SAFE_INTEGER) || hi > BigInt(Number.MAX_SAFE_INTEGER - 2 * BLOCK_ROWIDS)) return null;
  const span = Number(hi - lo) + 1;
  if (span < PARALLEL_MIN_ROWS || span > MAX_BLOCKS * BLOCK_ROWIDS) return null;
  if (countRowsUpTo(db, table, PARALLEL_MIN_ROWS) < PARALLEL_MIN_ROWS) return null;
  return { lo: Number(lo), blocks: Math.ceil(span / BLOCK_ROWIDS) };
}

/**
 * Starts the worker and waits until it has the file open; null (and no worker left) when it could not, so the
 * caller encodes on the main thread alone. `db` is the main thread's connection, open on `file`, whose inode
 * was `inode` (the worker checks it opened the same one).
 */
export async function parallelChunks(
  db: Database.Database,
  file: string,
  inode: number,
  table: DimensionTable,
  options: ExportOptions,
  plan: ParallelPlan,
): Promise<CsvChunks | null> {
  const filter = filterConditions(table, options);
  const sql = blockSql(table, filter);
  const data: ExportWorkerData = {
    file,
    inode,
    sql,
    params: filter.params,
    lo: plan.lo,
    blockRows: BLOCK_ROWIDS,
    blocks: plan.blocks,
    cycle: BLOCK_CYCLE,
    shared: new SharedArrayBuffer(WORKER_SLOTS * CHUNK_BUFFER_BYTES),
    slots: WORKER_SLOTS,
  };
  running = true;
  let worker: Worker;
  try {
    worker = startWorker(import.meta.url, 'export-worker', data, { maxYoungGenerationSizeMb: WORKER_YOUNG_MB });
  } catch {
    running = false;
    return null;
  }
  const queue: Extract<ExportWorkerMessage, { kind: 'chunk' }>[] = [];
  let failure: Error | null = null;
  let resume: (() => void) | null = null;
  let closed = false;
  const ready = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), WORKER_START_TIMEOUT_MS);
    worker.on('message', (message: ExportWorkerMessage) => {
      if (message.kind === 'ready') {
        clearTimeout(timer);
        resolve(true);
      } else if (message.kind === 'chunk') {
        queue.push(message);
        resume?.();
      } else {
        clearTimeout(timer);
        failure = new Error(`export worker: ${message.message}`);
        resolve(false);
        resume?.();
      }
    });
    worker.on('error', (err) => {
      clearTimeout(timer);
      failure = err;
      resolve(false);
      resume?.();
    });
    worker.on('exit', () => {
      if (closed) return;
      clearTimeout(timer);
      failure ??= new Error('export worker exited');
      resolve(false);
      resume?.();
    });
  });
  const stop = (): void => {
    if (closed) return;
    closed = true;
    running = false;
    void worker.terminate();
  };
  if (!(await ready)) {
    stop();
    return null;
  }
  started += 1;

  const own = prepareBlockStatements(db, sql, filter.params);
  let block = 0;
  let encoder: BlockEncoder | null = null;
  let records = 0;
  return {
    next(): Buffer | null | typeof WAIT {
      for (;;) {
        if (failure !== null) throw failure;
        if (block >= plan.blocks) return null;
        if (block % BLOCK_CYCLE === 0) {
          const current = (encoder ??= new BlockEncoder(own, plan.lo + block * BLOCK_ROWIDS, plan.lo + (block + 1) * BLOCK_ROWIDS));
          const { chunk, done, records: encoded } = encodeSomeWith((target) => current.encodeInto(target));
          records += encoded;
          if (done) {
            encoder = null;
            block += 1;
          }
          if (chunk.length > 0) return chunk;
          continue;
        }
        const message = queue[0];
        if (message === undefined) return WAIT;
        if (message.block !== block) throw new Error(`export worker sent block ${message.block}, expected ${block}`);
        queue.shift();
        // copied out now, so the chunk dies young once written, and the slot goes straight back to the worker
        const long = message.long === null ? null : Buffer.from(message.long);
        const chunk = Buffer.allocUnsafeSlow(message.length + (long?.length ?? 0));
        chunk.set(new Uint8Array(data.shared, message.slot * CHUNK_BUFFER_BYTES, message.length));
        long?.copy(chunk, message.length);
        worker.postMessage(message.slot);
        records += message.records;
        if (message.last) block += 1;
        if (chunk.length > 0) return chunk;
      }
    },
    onReady(callback: () => void): void {
      resume = callback;
    },
    close(): void {
      encoder?.close();
      stop();
    },
    get rows(): number {
      return records;
    },
  };
}
