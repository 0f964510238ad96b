import Database from 'better-sqlite3';
import { readerThreads, type ReaderPool } from '../reader-threads/pool.js';
import { quoteIdentifier } from '../search/kls-schema.js';
import type { Locale } from '../search/localized.js';
import { registeredGoldTables } from './gold-tables.js';

/** At most this many rows per group. */
export const ROWS_PER_GROUP = 20;

/** What to look up. */
export interface EntityQuery {
  entityType: string | null;
  entityId: string;
  /** `YYYY-MM`, or null for every month. */
  timeBucket: string | null;
  locale: Locale;
}

/** Matching rows of one Gold table (the contract's ExplainGroup). */
export interface ExplainGroup {
  table: string;
  label: string;
  count: number;
  rows: Record<string, unknown>[];
}

/**
 * Source records of an entity: one group per registered Gold table (of the entity type, or all) with at least
 * one row whose entity column equals the ID and, for tables with a time column, whose month is `timeBucket`.
 * `count` is exact; `rows` are the first ROWS_PER_GROUP in table order.
 */
export function explainEntityRecords(db: Database.Database, query: EntityQuery): ExplainGroup[] {
  const groups: ExplainGroup[] = [];
  for (const gold of registeredGoldTables(db, query.entityType)) {
    const conditions = [`${quoteIdentifier(gold.entityColumn)} = ?`];
    const values: string[] = [query.entityId];
    if (query.timeBucket !== null && gold.timeColumn !== null) {
      conditions.push(`substr(CAST(${quoteIdentifier(gold.timeColumn)} AS TEXT), 1, 7) = ?`);
      values.push(query.timeBucket);
    }
    const from = `FROM ${quoteIdentifier(gold.table)} WHERE ${conditions.join(' AND ')}`;
    const count = (db.prepare(`SELECT count(*) AS n ${from}`).get(...values) as { n: number }).n;
    if (count === 0) continue;
    const rows = (db.prepare(`SELECT * ${from} LIMIT ${ROWS_PER_GROUP}`).all(...values) as Record<string, unknown>[]).map(toApiRecord);
    groups.push({ table: gold.table, label: gold.label[query.locale], count, rows });
  }
  return groups;
}

/** Page cache of the connection an explain opens, in KiB: it reads each page of a table it scans once. */
const EXPLAIN_CACHE_KIB = 1024;

/** explainEntityRecords on a read-only connection of its own to `file` (on a reader thread). */
export function explainFile(file: string, query: EntityQuery): ExplainGroup[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma(`cache_size = -${EXPLAIN_CACHE_KIB}`);
    return explainEntityRecords(db, query);
  } finally {
    db.close();
  }
}

/**
 * explainEntityRecords over `file` on a reader thread (the process's unless given): its counts scan every Gold
 * table whose entity column has no index, which would hold the main thread for as long. The caller holds a lease
 * on the tenant meanwhile.
 */
export function explainOnReaderThread(file: string, query: EntityQuery, readers: ReaderPool = readerThreads()): Promise<ExplainGroup[]> {
  return new Promise((resolve, reject) => {
    readers.run({ kind: 'explain', file, query }, (reply) => {
      if (reply.kind === 'explained') resolve(reply.groups);
      else if (reply.kind === 'failed') reject(new Error(`explain failed on its reader thread: ${reply.message}`));
    });
  });
}

/** A raw Gold record as JSON: BLOB values as base64 text, every other value as stored. */
export function toApiRecord(row: Record<string, unknown>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    record[column] = Buffer.isBuffer(value) ? value.toString('base64') : typeof value === 'bigint' ? Number(value) : value;
  }
  return record;
}
