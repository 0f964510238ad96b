import type { ReaderEnd, Readers } from '../reader-threads/protocol.js';
import type { ExportJobSpec, ExportReaderJob, ExportReply } from './export-job.js';
import type { CsvChunks } from './csv-export-stream.js';

/** An export started on the readers. */
export interface ReaderExport {
  truncated: boolean;
  /** The CSV records as the reader sends them; cancel() cancels the job. */
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

/**
 * Starts `spec` on the readers and resolves once it knows whether the export is truncated; rejects with
 * ExportNotStarted when the job ends before that. Each chunk the response is done with (`written`) sends the reader
 * a credit for one more, with the chunk's buffer to fill again.
 */
export function exportOnReaders(readers: Readers, spec: ExportJobSpec): Promise<ReaderExport> {
  return new Promise((resolve, reject) => {
    const queue: { bytes: ArrayBuffer; length: number; records: number }[] = [];
    let started = false;
    let over = false;
    let ended = false;
    let cancelled = false;
    let failure: Error | null = null;
    let waiting: { resolve: (chunk: Buffer | null) => void; reject: (err: Error) => void } | null = null;
    let records = 0;
    let finish = (): void => {};
    const finished = new Promise<void>((resolveFinished) => (finish = resolveFinished));

    /** The next chunk, or null at the end, as far as it is known now; undefined while the reader owes one. */
    const take = (): Buffer | null | undefined => {
      if (failure !== null) throw failure;
      if (cancelled) return null;
      const first = queue.shift();
      if (first === undefined) return ended ? null : undefined;
      records += first.records;
      return Buffer.from(first.bytes, 0, first.length);
    };
    /** Answers a pending `next` once there is something to answer it with. */
    const answer = (): void => {
      if (waiting === null) return;
      const { resolve: answerWith, reject: failWith } = waiting;
      try {
        const chunk = take();
        if (chunk === undefined) return;
        waiting = null;
        answerWith(chunk);
      } catch (err) {
        waiting = null;
        failWith(err as Error);
      }
    };
    const chunks: CsvChunks = {
      next: () =>
        new Promise((resolveNext, rejectNext) => {
          waiting = { resolve: resolveNext, reject: rejectNext };
          answer();
        }),
      written(chunk: Buffer): void {
        if (!over) job.send({ kind: 'credit', bytes: chunk.buffer as ArrayBuffer });
      },
      cancel(): void {
        if (cancelled) return;
        cancelled = true;
        queue.length = 0;
        if (!over) job.send({ kind: 'cancel' });
        answer();
      },
      get rows(): number {
        return records;
      },
    };
    const onReply = (reply: ExportReply | ReaderEnd): void => {
      switch (reply.kind) {
        case 'head':
          started = true;
          resolve({ truncated: reply.truncated, chunks, finished });
          return;
        case 'chunk':
          if (!cancelled) queue.push(reply);
          answer();
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
          break;
      }
      over = true;
      finish();
      if (!started) reject(failure ?? new ExportNotStarted(false, `the export ended with "${reply.kind}" before it started`));
      else answer();
    };
    const exportJob: ExportReaderJob = { kind: 'export', spec };
    const job = readers.run<ExportReply>(exportJob, onReply);
  });
}
