import type { ExportJobSpec, JobReply, Readers } from '../reader-threads/protocol.js';
import { CHUNK_BUFFER_BYTES } from './csv-chunks.js';
import { WAIT, type CsvChunks } from './csv-export-stream.js';

/** Slots a reader encodes an export into: chunks it may be ahead of the stream by (each about 256 KiB). */
const SLOTS = 4;

/** An export started on the readers. */
export interface ReaderExport {
  truncated: boolean;
  /** The CSV records as the reader encodes them; close() cancels the job. */
  chunks: CsvChunks;
  /** Resolves when the job is over on its reader (ended, failed or cancelled): it no longer reads the file. */
  finished: Promise<void>;
}

/** What a job that ends before its head means: the file was swapped (or removed), or the read failed. */
export class ExportNotStarted extends Error {
  constructor(
    readonly replaced: boolean,
    message: string,
  ) {
    super(message);
  }
}

type ChunkReply = Extract<JobReply, { kind: 'chunk' }>;

/**
 * Starts `spec` on the readers and resolves once it knows whether the export is truncated; rejects with
 * ExportNotStarted when the job ends before that. The reader encodes into SLOTS slots of a shared buffer; each
 * chunk is copied out here into a buffer of its exact size (allocated by the main thread, so that its garbage
 * collector counts it and it dies young once written), and its slot goes straight back.
 */
export function exportOnReaders(readers: Readers, spec: Omit<ExportJobSpec, 'shared'>): Promise<ReaderExport> {
  return new Promise((resolve, reject) => {
    const shared = new SharedArrayBuffer(SLOTS * CHUNK_BUFFER_BYTES);
    const queue: ChunkReply[] = [];
    let started = false;
    let over = false;
    let ended = false;
    let closed = false;
    let failure: Error | null = null;
    let resume: (() => void) | null = null;
    let records = 0;
    let finish = (): void => {};
    const finished = new Promise<void>((resolveFinished) => (finish = resolveFinished));
    const chunks: CsvChunks = {
      next(): Buffer | null | typeof WAIT {
        if (failure !== null) throw failure;
        const first = queue.shift();
        if (first === undefined) return ended ? null : WAIT;
        const long = first.long === null ? null : Buffer.from(first.long);
        const chunk = Buffer.allocUnsafeSlow(first.length + (long?.length ?? 0));
        chunk.set(new Uint8Array(shared, first.slot * CHUNK_BUFFER_BYTES, first.length));
        long?.copy(chunk, first.length);
        if (!over) job.send({ kind: 'credit', slot: first.slot });
        records += first.records;
        return chunk;
      },
      onReady(callback: () => void): void {
        resume = callback;
      },
      close(): void {
        if (closed) return;
        closed = true;
        queue.length = 0;
        if (!over) job.send({ kind: 'cancel' });
      },
      get rows(): number {
        return records;
      },
    };
    const onReply = (reply: JobReply): void => {
      switch (reply.kind) {
        case 'head':
          started = true;
          resolve({ truncated: reply.truncated, chunks, finished });
          return;
        case 'chunk':
          if (!closed) queue.push(reply);
          resume?.();
          return;
        case 'end':
          ended = true;
          break;
        case 'replaced':
          failure = new ExportNotStarted(true, 'the tenant file was replaced as the export started');
          break;
        case 'failed':
          failure = started ? new Error(`export failed on its reader: ${reply.message}`) : new ExportNotStarted(false, reply.message);
          break;
        case 'cancelled':
        case 'explained':
          break;
      }
      over = true;
      finish();
      if (!started) reject(failure ?? new ExportNotStarted(false, `the export ended with "${reply.kind}" before it started`));
      else resume?.();
    };
    const job = readers.run({ kind: 'export', spec: { ...spec, shared } }, onReply);
  });
}
