import { Readable, type Writable } from 'node:stream';
import { startSpan } from '../tracing.js';
import { csvRecord } from './csv.js';

/** Where an export's CSV records come from, a chunk at a time. */
export interface CsvChunks {
  /** The next chunk of records, or null when there are no more; rejects when the read failed. */
  next(): Promise<Buffer | null>;
  /**
   * The destination is done with `chunk` (one `next` answered): the source may make one more, and fill its buffer
   * again. Until then the bytes are left alone, whatever the destination does with them.
   */
  written(chunk: Buffer): void;
  /** Stops reading; a pending `next` answers null. Called exactly once, when the stream closes. */
  cancel(): void;
  /** Records in the chunks taken so far (the export-rows metric reads it at the end). */
  readonly rows: number;
}

/**
 * The CSV of an export as a stream: the header record, then the chunks, each asked for only when the consumer
 * wants more (back-pressure reaches the reader through `next` and `written`). Once the stream closes (its end, an
 * error, or destroyed because the client went away) the chunks are cancelled and `release` runs, exactly once.
 */
export function csvExportStream(header: readonly string[], chunks: CsvChunks, release: () => void): Readable {
  const span = startSpan('export stream');
  const stream = new CsvStream(Buffer.from(csvRecord(header), 'utf8'), chunks);
  // on 'close' rather than at the last chunk: a stream waiting for a chunk hears of its destruction only here
  stream.once('close', () => {
    span.end(stream.errored, { 'export.rows': chunks.rows });
    try {
      chunks.cancel();
    } finally {
      release();
    }
  });
  return stream;
}

/**
 * The records as a stream of whole chunks (object mode: a read answers one chunk, never chunks joined into a new
 * buffer). Piped, whether by Koa into the response or by `pipeline` into a compressor, it writes each chunk with a
 * callback and hands it back to its source (`written`) once the destination says it is done with it: the reader
 * fills that buffer again, so an export holds a few chunk buffers whatever its size, rather than one per chunk until
 * the collector frees them (decision 18).
 */
class CsvStream extends Readable {
  private headerSent = false;

  constructor(
    private readonly header: Buffer,
    private readonly chunks: CsvChunks,
  ) {
    super({ objectMode: true, highWaterMark: 1 });
  }

  override _read(): void {
    if (!this.headerSent) {
      this.headerSent = true;
      this.push(this.header);
      return;
    }
    this.chunks.next().then(
      (chunk) => {
        if (!this.destroyed) this.push(chunk);
      },
      (err: Error) => this.destroy(err),
    );
  }

  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    void this.writeTo(destination as unknown as Writable, options?.end !== false);
    return destination;
  }

  /** Writes every chunk to `destination` as `pipe` would, waiting where it asks to; ends it after the last when `end`. */
  private async writeTo(destination: Writable, end: boolean): Promise<void> {
    try {
      for await (const chunk of this as AsyncIterable<Buffer>) {
        const done = chunk === this.header ? undefined : (err?: Error | null): void => {
          if (err == null) this.chunks.written(chunk);
        };
        if (!destination.write(chunk, done)) await drained(destination, this);
      }
      if (end) destination.end();
    } catch {
      // this stream failed or was destroyed (its listeners hear of it), or the destination closed: as with `pipe`,
      // the destination is not ended
    }
  }
}

/** Resolves on the destination's next 'drain'; rejects once it, or the source, closes first. */
function drained(destination: Writable, source: Readable): Promise<void> {
  if (destination.destroyed || source.destroyed) return Promise.reject(new Error('closed'));
  return new Promise((resolve, reject) => {
    const settle = (err?: Error): void => {
      destination.off('drain', onDrain);
      destination.off('close', onClose);
      source.off('close', onClose);
      if (err === undefined) resolve();
      else reject(err);
    };
    const onDrain = (): void => settle();
    const onClose = (): void => settle(new Error('closed'));
    destination.on('drain', onDrain);
    destination.on('close', onClose);
    source.on('close', onClose);
  });
}
