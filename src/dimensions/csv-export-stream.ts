import { Readable } from 'node:stream';
import { csvRecord } from './csv.js';

/** About this many bytes of CSV are produced per turn of the event loop. */
const CHUNK_BYTES = 64 * 1024;
/** Room for the record that crosses CHUNK_BYTES; a longer record gets a buffer of its own. */
const SLACK_BYTES = 16 * 1024;

/** What the stream reads from and what it gives back when it ends or is destroyed. */
export interface CsvExportSource {
  /** Column names (the header row). */
  header: readonly string[];
  /** Rows as value arrays (a better-sqlite3 raw iterator). */
  rows: Iterator<unknown[]>;
  /** Called exactly once after the iterator is closed: on the end, on an error and on destroy (client gone). */
  release: () => void;
}

/**
 * CSV as a pull stream with back-pressure: a chunk of about 64 KiB is produced only when the consumer asks
 * (`_read`), each in its own event-loop turn (setImmediate) so other requests are served between chunks.
 * Destroying it (Koa does when the client disconnects) closes the iterator, which stops the query.
 */
export class CsvExportStream extends Readable {
  private headerSent = false;
  private scheduled = false;
  private finished = false;
  private released = false;

  constructor(private readonly source: CsvExportSource) {
    super({ highWaterMark: CHUNK_BYTES });
  }

  override _read(): void {
    if (this.scheduled || this.finished) return;
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
    this.closeSource();
    callback(error);
  }

  /** Encodes rows straight into one buffer (cheaper than concatenating strings and converting them). */
  private pushChunk(): void {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES + SLACK_BYTES);
    let used = 0;
    if (!this.headerSent) {
      used += chunk.write(csvRecord(this.source.header), used, 'utf8');
      this.headerSent = true;
    }
    while (used < CHUNK_BYTES) {
      const next = this.source.rows.next();
      if (next.done === true) {
        this.finished = true;
        this.closeSource();
        if (used > 0) this.push(chunk.subarray(0, used));
        this.push(null);
        return;
      }
      const record = csvRecord(next.value);
      // a UTF-16 code unit never takes more than 3 UTF-8 bytes
      if (record.length * 3 > chunk.length - used) {
        if (used > 0) this.push(chunk.subarray(0, used));
        this.push(Buffer.from(record, 'utf8'));
        return;
      }
      used += chunk.write(record, used, 'utf8');
    }
    this.push(chunk.subarray(0, used));
  }

  private closeSource(): void {
    if (this.released) return;
    this.released = true;
    try {
      this.source.rows.return?.();
    } finally {
      this.source.release();
    }
  }
}
