import fs from 'node:fs';
import Database from 'better-sqlite3';
import { Problem } from '../common/problems.js';
import type { ReaderEnd, ReaderJob, Readers, SendReply, SteppedJob } from '../reader-threads/protocol.js';
import type { EntityQuery, ExplainGroup } from '../ports/lineage.js';
import { GoldTableCount } from './explain.js';
import { registeredGoldTables } from './gold-tables.js';

/** Page cache of the connection an explain opens, in KiB: it reads each page of a table it scans once. */
const EXPLAIN_CACHE_KIB = 1024;

/** The source records of an entity in a tenant file, as a reader job. */
export interface ExplainReaderJob extends ReaderJob {
  kind: 'explain';
  file: string;
  query: EntityQuery;
}

/** What an explain says: its groups; or that the tenant's file was removed since the request leased it. */
export type ExplainReply = { kind: 'explained'; id: number; final: true; groups: ExplainGroup[] } | { kind: 'replaced'; id: number; final: true };

/**
 * The source records of an entity on a reader, in steps: open the file and read the registry (one step), then
 * each registered Gold table (of the entity type, or all) a slice at a time (GoldTableCount), then `explained`:
 * one group per table with at least one matching row, ordered by table name.
 */
export class ExplainJob implements SteppedJob {
  private db: Database.Database | null = null;
  private tables: GoldTableCount[] = [];
  private readonly groups: ExplainGroup[] = [];
  private finished = false;

  constructor(
    private readonly id: number,
    private readonly file: string,
    private readonly query: EntityQuery,
    private readonly send: SendReply,
  ) {}

  get runnable(): boolean {
    return !this.finished;
  }

  get over(): boolean {
    return this.finished;
  }

  step(): void {
    if (this.db === null) return this.open();
    const table = this.tables[0];
    if (table === undefined) {
      this.close();
      this.send({ kind: 'explained', id: this.id, final: true, groups: this.groups } satisfies ExplainReply);
      return;
    }
    table.step();
    if (!table.done) return;
    this.tables.shift();
    const group = table.group(this.query.locale);
    if (group !== null) this.groups.push(group);
  }

  credit(): void {}

  close(): void {
    this.finished = true;
    this.tables = [];
    this.db?.close();
    this.db = null;
  }

  private open(): void {
    try {
      this.db = new Database(this.file, { readonly: true, fileMustExist: true });
    } catch (err) {
      if (fs.existsSync(this.file)) throw err;
      // the tenant's file was removed since the request leased it
      this.close();
      this.send({ kind: 'replaced', id: this.id, final: true } satisfies ExplainReply);
      return;
    }
    this.db.pragma(`cache_size = -${EXPLAIN_CACHE_KIB}`);
    this.tables = registeredGoldTables(this.db, this.query.entityType).map((gold) => new GoldTableCount(this.db!, gold, this.query));
  }
}

/** Seconds a client is asked to wait when the tenant's file was removed just as its explain started. */
const GONE_RETRY_AFTER_S = 1;

/**
 * The source records of an entity in `file` (tenant `tenant`'s, under the caller's lease), read on `readers`: a
 * reader thread, or the main thread in bounded steps (READER_THREADS). Their counts scan every Gold table whose
 * entity column has no index. 503 with Retry-After when the file was removed before the reader opened it.
 */
export function explainOnReaders(readers: Readers, tenant: string, file: string, query: EntityQuery): Promise<ExplainGroup[]> {
  return new Promise((resolve, reject) => {
    const job: ExplainReaderJob = { kind: 'explain', file, query };
    readers.run<ExplainReply>(job, (reply: ExplainReply | ReaderEnd) => {
      if (reply.kind === 'explained') resolve(reply.groups);
      else if (reply.kind === 'replaced') reject(gone(tenant));
      else if (reply.kind === 'failed') reject(new Error(`explain failed on its reader: ${reply.message}`));
      else if (reply.kind === 'cancelled') reject(new Error('explain cancelled'));
    });
  });
}

const gone = (tenant: string): Problem =>
  new Problem('tenant-unavailable', `the file of tenant "${tenant}" was removed as the explain started; retry`, { retryAfterSeconds: GONE_RETRY_AFTER_S });
