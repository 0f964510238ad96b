import type { ExportJobSpec } from '../dimensions/export-job.js';
import type { EntityQuery, ExplainGroup } from '../lineage/explain.js';

/** Work for a reader thread: a dimension export, or the source records of an entity. */
export type ReaderJob = { kind: 'export'; spec: ExportJobSpec } | { kind: 'explain'; file: string; query: EntityQuery };

/** What the main thread sends a reader thread: a job under its id, or word about a job already sent. */
export type ReaderRequest =
  | ({ id: number } & ReaderJob)
  /** The export's slot `slot` is free again (the main thread copied its chunk out). */
  | { kind: 'credit'; id: number; slot: number }
  /** The job is no longer wanted (client gone): stop, close, answer `cancelled`. */
  | { kind: 'cancel'; id: number };

/** What a reader thread answers about a job. Every job gets exactly one final reply (FINAL_REPLIES), last. */
export type JobReply =
  | { kind: 'head'; id: number; truncated: boolean }
  /** `length` bytes of CSV in slot `slot`, then `long` (a record too long for the slot); `records` rows in all. */
  | { kind: 'chunk'; id: number; slot: number; length: number; long: ArrayBuffer | null; records: number }
  | { kind: 'end'; id: number }
  | { kind: 'explained'; id: number; groups: ExplainGroup[] }
  /** The path named another file than the one the main thread read the table from (swapped meanwhile). */
  | { kind: 'replaced'; id: number }
  | { kind: 'cancelled'; id: number }
  | { kind: 'failed'; id: number; message: string };

/** What a reader thread sends: that it is ready for jobs, or a reply about one. */
export type ReaderReply = { kind: 'ready' } | JobReply;

/** Replies after which a job is over on its thread (it holds no file and no memory there any more). */
export const FINAL_REPLIES: ReadonlySet<JobReply['kind']> = new Set(['end', 'explained', 'replaced', 'cancelled', 'failed']);
