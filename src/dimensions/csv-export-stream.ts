import { Readable } from 'node:stream';
import { startSpan } from '../telemetry/tracing.js';
import { csvRecord } from './csv.js';
import { CHUNK_BYTES } from './csv-chunks.js';

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
