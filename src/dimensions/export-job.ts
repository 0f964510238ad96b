import fs from 'node:fs';
import type Database from 'better-sqlite3';
import type { ExportJobSpec, JobReply } from '../reader-threads/protocol.js';
import { CHUNK_BUFFER_BYTES, firstRows, rowEncoder, type ChunkEncoder } from './csv-chunks.js';
import { openExportConnection, rowCeiling } from './export-connection.js';
import { exportSelect, matchProbe } from './export-sql.js';
import { blockEncoder, planBlocks } from './rowid-blocks.js';

/** Matching rows the truncation probe steps through per step. */
const PROBE_ROWS_PER_STEP = 50_000;

/**
 * One export on a reader (a reader thread, or the main thread with READER_THREADS=off), in steps: open the file
 * (and check it is the one the main thread read the table from), learn whether more than `cap` rows match
 * (answered as `head`), then a chunk of CSV per step into a free slot of the shared buffer (no free slot, no
 * step: the main thread hands each back once it has copied the chunk out), then `end`.
 * Each step is bounded except a single SQLite step: the first row of a sort (which sorts every matching row), or
 * a row search that finds nothing, reads the whole table at once.
 */
export class ExportJob {
  private db: Database.Database | null = null;
  private phase: 'open' | 'probe' | 'stream' | 'over' = 'open';
  private probe: { rows: Iterator<unknown>; matched: number } | null = null;
  private encoder: ChunkEncoder | null = null;
  private readonly slots: Buffer[];
  private readonly free: number[];

  constructor(
    private readonly id: number,
    private readonly spec: ExportJobSpec,
    private readonly send: (reply: JobReply, transfer?: ArrayBuffer[]) => void,
  ) {
    this.slots = Array.from({ length: spec.shared.byteLength / CHUNK_BUFFER_BYTES }, (_, i) => Buffer.from(spec.shared, i * CHUNK_BUFFER_BYTES, CHUNK_BUFFER_BYTES));
    this.free = this.slots.map((_, i) => i);
  }

  get runnable(): boolean {
    return this.phase !== 'over' && (this.phase !== 'stream' || this.free.length > 0);
  }

  get over(): boolean {
    return this.phase === 'over';
  }

  /** Slot `slot` is free again. */
  credit(slot: number): void {
    this.free.push(slot);
  }

  step(): void {
    if (this.phase === 'open') this.open();
    else if (this.phase === 'probe') this.probeSome();
    else if (this.phase === 'stream') this.streamSome();
  }

  close(): void {
    this.phase = 'over';
    this.probe?.rows.return?.();
    this.probe = null;
    this.encoder?.close();
    this.encoder = null;
    this.db?.close();
    this.db = null;
  }

  private open(): void {
    const { file, inode, table, cap } = this.spec;
    try {
      this.db = openExportConnection(file);
    } catch (err) {
      if (inodeOf(file) === null) return this.finish({ kind: 'replaced', id: this.id }); // removed meanwhile
      throw err;
    }
    const db = this.db;
    // the main thread read the table from the file that had this inode; a file swapped in since is another one
    if (inodeOf(file) !== inode) {
      this.finish({ kind: 'replaced', id: this.id });
      return;
    }
    if (rowCeiling(db, table) <= cap) {
      this.begin(false);
      return;
    }
    const probe = matchProbe(table, this.spec.options, cap + 1);
    this.probe = { rows: db.prepare(probe.sql).pluck().iterate(...probe.params), matched: 0 };
    this.phase = 'probe';
  }

  /** Steps through up to PROBE_ROWS_PER_STEP matching rows; past `cap` of them the export is truncated. */
  private probeSome(): void {
    const probe = this.probe!;
    for (let i = 0; i < PROBE_ROWS_PER_STEP; i += 1) {
      if (probe.rows.next().done === true) return this.begin(false);
      probe.matched += 1;
      if (probe.matched > this.spec.cap) return this.begin(true);
    }
  }

  private begin(truncated: boolean): void {
    this.probe?.rows.return?.();
    this.probe = null;
    this.send({ kind: 'head', id: this.id, truncated });
    const db = this.db!;
    const { table, options, cap } = this.spec;
    const plan = planBlocks(db, table, options, truncated);
    if (plan !== null) {
      this.encoder = blockEncoder(db, table, options, plan);
    } else {
      const select = exportSelect(table, options, cap);
      this.encoder = rowEncoder(firstRows(db.prepare(select.sql).raw(true).safeIntegers(true).iterate(...select.params) as Iterator<unknown[]>, cap));
    }
    this.phase = 'stream';
  }

  private streamSome(): void {
    const slot = this.free.pop()!;
    const { used, done, long, records } = this.encoder!.encodeInto(this.slots[slot]!);
    if (used === 0 && long === null) {
      this.free.push(slot);
    } else {
      // a record too long for the slot goes in an ArrayBuffer of its own, moved to the main thread
      const own = long === null ? null : (long.buffer.slice(long.byteOffset, long.byteOffset + long.byteLength) as ArrayBuffer);
      this.send({ kind: 'chunk', id: this.id, slot, length: used, long: own, records }, own === null ? [] : [own]);
    }
    if (done) this.finish({ kind: 'end', id: this.id });
  }

  private finish(reply: JobReply): void {
    this.close();
    this.send(reply);
  }
}

function inodeOf(file: string): number | null {
  try {
    return fs.statSync(file).ino;
  } catch {
    return null;
  }
}
