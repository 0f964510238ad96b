import type Database from 'better-sqlite3';
import type { ReaderJob, SendReply, SteppedJob } from '../reader-threads/protocol.js';
import type { DimensionTable } from './dimension-table.js';
import type { ExportOptions } from './export-options.js';
import { CHUNK_BUFFER_BYTES, firstRows, rowEncoder, type ChunkEncoder } from './csv-chunks.js';
import { rowidAddressable } from './dimension-table.js';
import { inodeOf, openExportConnection, rowCeiling, rowidPages } from './export-connection.js';
import { exportPageSelect, exportSelect, matchProbe } from './export-sql.js';

/** A dimension export as the main thread hands it to a reader (structured-cloned to a reader thread). */
export interface ExportJobSpec {
  file: string;
  /** The inode of the file the main thread read the table and options from: the export reads that file or none. */
  inode: number;
  table: DimensionTable;
  options: ExportOptions;
  /** Row cap (MAX_EXPORT_ROWS, or a test's). */
  cap: number;
}

/** The export as a reader job. */
export interface ExportReaderJob extends ReaderJob {
  kind: 'export';
  spec: ExportJobSpec;
}

/**
 * What an export says: whether it is truncated (first), chunks of CSV of `records` rows, UTF-8, the first `length`
 * bytes of `bytes` (transferred from a reader thread), then `end`; or, at once, that the path named another file
 * than the one the main thread read the table from (swapped meanwhile), or none.
 */
export type ExportReply =
  | { kind: 'head'; id: number; final: false; truncated: boolean }
  | { kind: 'chunk'; id: number; final: false; bytes: ArrayBuffer; length: number; records: number }
  | { kind: 'end'; id: number; final: true }
  | { kind: 'replaced'; id: number; final: true };

/** Matching rows the truncation probe steps through per step. */
const PROBE_ROWS_PER_STEP = 50_000;
/**
 * Chunks a reader may be ahead of the response by (about 256 KiB each): enough that the response seldom waits for
 * the reader, few enough that a slow client holds about a megabyte, and the job no step, while it does not read.
 * A chunk counts until the response is done with it; its buffer then comes back with the credit and is filled
 * again, so an export allocates about this many buffers whatever its size.
 */
const CHUNKS_AHEAD = 4;

/**
 * One export on a reader (a reader thread, or the main thread with READER_THREADS=off), in steps: open the file
 * (and check it is the one the main thread read the table from), learn whether more than `cap` rows match
 * (answered as `head`), then a chunk of CSV per step while fewer than CHUNKS_AHEAD chunks are out (`credit` says
 * the response is done with one, and gives its buffer back), then `end`.
 * Each step is bounded except a single SQLite step: the first row of a sort (which sorts every matching row), or
 * a row search that finds nothing, reads the whole table at once.
 */
export class ExportJob implements SteppedJob {
  private db: Database.Database | null = null;
  private phase: 'open' | 'probe' | 'stream' | 'over' = 'open';
  private probe: { rows: Iterator<unknown>; matched: number } | null = null;
  private encoder: ChunkEncoder | null = null;
  /** Chunks sent whose credit has not come back. */
  private out = 0;
  /** Chunk buffers given back, to be filled again. */
  private readonly spare: ArrayBuffer[] = [];

  constructor(
    private readonly id: number,
    private readonly spec: ExportJobSpec,
    private readonly send: SendReply,
  ) {}

  get runnable(): boolean {
    return this.phase !== 'over' && (this.phase !== 'stream' || this.out < CHUNKS_AHEAD);
  }

  get over(): boolean {
    return this.phase === 'over';
  }

  credit(bytes?: ArrayBuffer): void {
    this.out -= 1;
    if (bytes !== undefined && bytes.byteLength === CHUNK_BUFFER_BYTES && this.spare.length < CHUNKS_AHEAD) this.spare.push(bytes);
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
      if (inodeOf(file) === null) return this.finish({ kind: 'replaced', id: this.id, final: true }); // removed meanwhile
      throw err;
    }
    const db = this.db;
    // the main thread read the table from the file that had this inode; a file swapped in since is another one
    if (inodeOf(file) !== inode) {
      this.finish({ kind: 'replaced', id: this.id, final: true });
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
    this.send({ kind: 'head', id: this.id, final: false, truncated } satisfies ExportReply);
    this.encoder = rowEncoder(firstRows(this.rows(this.db!), this.spec.cap));
    this.phase = 'stream';
  }

  /** The rows to export: a page per call into SQLite for an unsorted rowid table (the common export), else row by row. */
  private rows(db: Database.Database): Iterator<unknown[]> {
    const { table, options, cap } = this.spec;
    if (options.sort === undefined && rowidAddressable(table)) return rowidPages(db, table, exportPageSelect(table, options));
    const select = exportSelect(table, options, cap);
    return db.prepare(select.sql).raw(true).safeIntegers(true).iterate(...select.params) as Iterator<unknown[]>;
  }

  private streamSome(): void {
    const bytes = this.spare.pop() ?? new ArrayBuffer(CHUNK_BUFFER_BYTES);
    const { used, done, long, records } = this.encoder!.encodeInto(Buffer.from(bytes));
    if (used > 0) this.sendChunk(bytes, used, long === null ? records : records - 1);
    else this.spare.push(bytes);
    // a record longer than a chunk's slack follows in a buffer of its own, which is not filled again
    if (long !== null) this.sendChunk(long.buffer.slice(long.byteOffset, long.byteOffset + long.length) as ArrayBuffer, long.length, 1);
    if (done) this.finish({ kind: 'end', id: this.id, final: true });
  }

  private sendChunk(bytes: ArrayBuffer, length: number, records: number): void {
    this.out += 1;
    this.send({ kind: 'chunk', id: this.id, final: false, bytes, length, records } satisfies ExportReply, [bytes]);
  }

  private finish(reply: ExportReply): void {
    this.close();
    this.send(reply);
  }
}
