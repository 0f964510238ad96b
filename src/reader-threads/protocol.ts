import type { DimensionTable } from '../dimensions/dimension-table.js';
import type { ExportOptions } from '../dimensions/export-options.js';
import type { EntityQuery, ExplainGroup } from '../lineage/explain.js';

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

/** Work for a reader: a dimension export, or the source records of an entity. */
export type ReaderJob = { kind: 'export'; spec: ExportJobSpec } | { kind: 'explain'; file: string; query: EntityQuery };

/** What the main thread sends a reader: a job under its id, or word about a job already sent. */
export type ReaderRequest =
  | ({ id: number } & ReaderJob)
  /** The main thread took one of the export's chunks: the reader may encode one more. */
  | { kind: 'credit'; id: number }
  /** The job is no longer wanted (client gone): stop, close, answer `cancelled`. */
  | { kind: 'cancel'; id: number };

/** What a reader answers about a job. Every job gets exactly one final reply (FINAL_REPLIES), last. */
export type JobReply =
  | { kind: 'head'; id: number; truncated: boolean }
  /** CSV of `records` rows, UTF-8 (transferred from a reader thread). */
  | { kind: 'chunk'; id: number; bytes: ArrayBuffer; records: number }
  | { kind: 'end'; id: number }
  | { kind: 'explained'; id: number; groups: ExplainGroup[] }
  /** The path named another file than the one the main thread read the table from (swapped meanwhile), or none. */
  | { kind: 'replaced'; id: number }
  | { kind: 'cancelled'; id: number }
  | { kind: 'failed'; id: number; message: string };

/** What a reader thread sends: that it is ready for jobs, or a reply about one. */
export type ReaderReply = { kind: 'ready' } | { kind: 'addon-loaded' } | JobReply;

/** Replies after which a job is over (it holds no file and no memory on its reader any more). */
export const FINAL_REPLIES: ReadonlySet<JobReply['kind']> = new Set(['end', 'explained', 'replaced', 'cancelled', 'failed']);

/** Word about a job already sent (ReaderRequest without the job's id). */
export type JobControl = { kind: 'credit' } | { kind: 'cancel' };

/** A job handed to the readers: the main thread's side of it. */
export interface RunningJob {
  /** Sends word about the job; nothing once it is over. */
  send(control: JobControl): void;
}

/**
 * Where reads that grow with a table run (READER_THREADS): on reader threads (pool.ts), or on the main thread in
 * bounded steps (main-thread.ts). Either steps any number of jobs in turn, one bounded step at a time.
 */
export interface Readers {
  /** Starts `job`; `onReply` hears every reply of it, the final one (FINAL_REPLIES) last, also when the reader fails. */
  run(job: ReaderJob, onReply: (reply: JobReply) => void): RunningJob;
  /** Jobs not yet over. */
  readonly jobCount: number;
  /** Resolves once no job is left (at once when none is). */
  settled(): Promise<void>;
}
