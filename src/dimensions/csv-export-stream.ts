import { Readable } from 'node:stream';
import { startSpan } from '../telemetry/tracing.js';
import { csvRecord } from './csv.js';

/** About this many bytes of CSV are produced per turn of the event loop (~1,300 rows, ~5 ms of encoding). */
export const CHUNK_BYTES = 256 * 1024;
/** Room for the record that crosses CHUNK_BYTES; a longer record gets a buffer of its own. */
const SLACK_BYTES = 64 * 1024;
/** Where records are encoded before the chunk is copied out at its exact size (one per thread). */
const scratch = Buffer.allocUnsafeSlow(CHUNK_BYTES + SLACK_BYTES);

/** What CsvChunks.next answers when the next chunk is being made elsewhere; the source calls `resume` then. */
export const WAIT = Symbol('wait');

/** Where CSV records come from, a chunk at a time. */
export interface CsvChunks {
  /** The next chunk of records, null when there are no more, or WAIT. Called once per event-loop turn. */
  next(): Buffer | null | typeof WAIT;
  /** Registers how to resume after WAIT (sources that never wait leave it out). */
  onReady?(resume: () => void): void;
  /** Stops reading (closes iterators, workers); called exactly once, at the end, on an error or on destroy. */
  close(): void;
  /** Records in the chunks answered so far (the export-rows metric reads it at the end). */
  readonly rows: number;
}

/** What the stream reads from and what it gives back when it ends or is destroyed. */
export interface CsvExportSource {
  /** Column names (the header row). */
  header: readonly string[];
  chunks: CsvChunks;
  /** Called exactly once after the chunks are closed: on the end, on an error and on destroy (client gone). */
  release: () => void;
}

/**
 * CSV as a pull stream with back-pressure: a chunk is produced only when the consumer asks (`_read`), each in
 * its own event-loop turn (setImmediate) so other requests are served between chunks. Destroying it (Koa does
 * when the client disconnects) closes the source, which stops the query.
 */
export class CsvExportStream extends Readable {
  private headerSent = false;
  private scheduled = false;
  private waiting = false;
  private finished = false;
  private released = false;
  /** The export's trace span, ended with the stream (src/telemetry/tracing.ts). */
  private readonly span = startSpan('export stream');

  constructor(private readonly source: CsvExportSource) {
    super({ highWaterMark: CHUNK_BYTES });
    source.chunks.onReady?.(() => {
      if (!this.waiting) return;
      this.waiting = false;
      this._read();
    });
  }

  override _read(): void {
    if (this.scheduled || this.finished || this.waiting) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.destroyed) return;
      try {
        this.pushChunk();
      } catch (err) {
        this.destroy(err as Error);
      }
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.span.end(error, { 'export.rows': this.source.chunks.rows });
    this.closeSource();
    callback(error);
  }

  private pushChunk(): void {
    if (!this.headerSent) {
      this.headerSent = true;
      this.push(Buffer.from(csvRecord(this.source.header), 'utf8'));
    }
    const chunk = this.source.chunks.next();
    if (chunk === WAIT) {
      this.waiting = true;
      return;
    }
    if (chunk === null) {
      this.finished = true;
      this.closeSource();
      this.push(null);
      return;
    }
    this.push(chunk);
  }

  private closeSource(): void {
    if (this.released) return;
    this.released = true;
    try {
      this.source.chunks.close();
    } finally {
      this.source.release();
    }
  }
}

/** Bytes a chunk buffer needs: CHUNK_BYTES plus room for the record that crosses it. */
export const CHUNK_BUFFER_BYTES = CHUNK_BYTES + SLACK_BYTES;

/** What encoding into a chunk buffer made: `used` bytes, then `long` (a record sent on its own) when there is one. */
export interface EncodedRows {
  used: number;
  done: boolean;
  long: Buffer | null;
  records: number;
}

/**
 * Encodes rows into `target` (CHUNK_BUFFER_BYTES long) until about CHUNK_BYTES are used. A record longer than
 * the room left ends the chunk and comes back as `long` (its own buffer, to be sent right after `used` bytes).
 * `done` when the rows ran out; `records` counts the records encoded, `long` included.
 */
export function encodeRowsInto(rows: Iterator<unknown[]>, target: Buffer): EncodedRows {
  let used = 0;
  let records = 0;
  while (used < CHUNK_BYTES) {
    const next = rows.next();
    if (next.done === true) return { used, done: true, long: null, records };
    const record = csvRecord(next.value);
    records += 1;
    // a UTF-16 code unit never takes more than 3 UTF-8 bytes
    if (record.length * 3 > target.length - used) return { used, done: false, long: Buffer.from(record, 'utf8'), records };
    used += target.write(record, used, 'utf8');
  }
  return { used, done: false, long: null, records };
}

/**
 * One chunk of about CHUNK_BYTES of CSV, allocated at its exact size when it is made (so it dies young once
 * written). `done` when the rows ran out; the chunk may then be empty.
 */
export function encodeSomeRows(rows: Iterator<unknown[]>): { chunk: Buffer; done: boolean; records: number } {
  return encodeSomeWith((target) => encodeRowsInto(rows, target));
}

/** encodeSomeRows for any encoder that writes into a CHUNK_BUFFER_BYTES buffer (see EncodedRows). */
export function encodeSomeWith(encodeInto: (target: Buffer) => EncodedRows): { chunk: Buffer; done: boolean; records: number } {
  const { used, done, long, records } = encodeInto(scratch);
  const chunk = Buffer.allocUnsafeSlow(used + (long?.length ?? 0));
  scratch.copy(chunk, 0, 0, used);
  long?.copy(chunk, used);
  return { chunk, done, records };
}

/** Chunks of about 256 KiB encoded value by value from rows (a better-sqlite3 raw iterator). */
export function rowChunks(rows: Iterator<unknown[]>): CsvChunks {
  let done = false;
  let records = 0;
  return {
    next(): Buffer | null {
      while (!done) {
        const encoded = encodeSomeRows(rows);
        done = encoded.done;
        records += encoded.records;
        if (encoded.chunk.length > 0) return encoded.chunk;
      }
      return null;
    },
    close(): void {
      rows.return?.();
    },
    get rows(): number {
      return records;
    },
  };
}
