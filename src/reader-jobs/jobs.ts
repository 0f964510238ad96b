import { ExportJob, type ExportReaderJob } from '../dimensions/export-job.js';
import { ExplainJob, type ExplainReaderJob } from '../lineage/explain-job.js';
import type { JobMaker } from '../reader-threads/protocol.js';

/** The jobs the server hands its readers: dimension exports and explains. */
export function readerJobs(): JobMaker {
  return (id, job, send) => {
    if (job.kind === 'export') return new ExportJob(id, (job as ExportReaderJob).spec, send);
    if (job.kind === 'explain') {
      const { file, query } = job as ExplainReaderJob;
      return new ExplainJob(id, file, query, send);
    }
    throw new Error(`readers run no job of kind "${job.kind}"`);
  };
}
