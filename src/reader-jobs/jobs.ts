import { CHUNK_BUFFER_BYTES } from '../dimensions/csv-chunks.js';
import { ExportJob, type ExportReaderJob } from '../dimensions/export-job.js';
import { ExplainJob, type ExplainReaderJob } from '../lineage/explain-job.js';
import type { JobMaker } from '../reader-threads/protocol.js';

/**
 * The jobs the server hands its readers: dimension exports and explains. One maker per reader: its exports encode
 * their chunks into one buffer, made at its first export (a reader steps one job at a time and each step copies its
 * chunk out, so its jobs need not allocate about 256 KiB of native memory each).
 */
export function readerJobs(): JobMaker {
  let chunkTarget: Buffer | null = null;
  return (id, job, send) => {
    if (job.kind === 'export') {
      chunkTarget ??= Buffer.allocUnsafeSlow(CHUNK_BUFFER_BYTES);
      return new ExportJob(id, (job as ExportReaderJob).spec, send, chunkTarget);
    }
    if (job.kind === 'explain') {
      const { file, query } = job as ExplainReaderJob;
      return new ExplainJob(id, file, query, send);
    }
    throw new Error(`readers run no job of kind "${job.kind}"`);
  };
}
