import { Readable } from 'node:stream';
import { startSpan } from '../tracing.js';
import { csvRecord } from './csv.js';
import { CHUNK_BYTES } from './csv-chunks.js';

/** Where an export's CSV records come from, a chunk at a time. */
export interface CsvChunks {
  /** The next chunk of records, or null when there are no more; rejects when the read failed. */
  next(): Promise<Buffer | null>;
  /** Stops reading; a pending `next` answers null. Called exactly once, when the stream closes. */
  cancel(): void;
  /** Records in the chunks taken so far (the export-rows metric reads it at the end). */
  readonly rows: number;
}

/**
 * The CSV of an export as a stream: the header record, then the chunks, each asked for only when the consumer
 * wants more (back-pressure reaches the reader through `next`). Once the stream closes (its end, an error, or
 * destroyed because the client went away) the chunks are cancelled and `release` runs, exactly once.
 */
export function csvExportStream(header: readonly string[], chunks: CsvChunks, release: () => void): Readable {
  const span = startSpan('export stream');
  async function* records(): AsyncGenerator<Buffer> {
    yield Buffer.from(csvRecord(header), 'utf8');
    for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next()) yield chunk;
  }
  const stream = Readable.from(records(), { objectMode: false, highWaterMark: CHUNK_BYTES });
  // on 'close' rather than in the generator's `finally`: a generator waiting for a chunk would hear of a
  // destroyed stream only once that chunk came
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
