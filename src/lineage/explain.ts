import type Database from 'better-sqlite3';
import type { EntityQuery, ExplainGroup } from '../ports/lineage.js';
import { columnsOf, hasRowid, quoteIdentifier } from '../search/kls-schema.js';
import type { Locale } from '../search/localized.js';
import type { GoldTable } from './gold-tables.js';

/** At most this many rows per group. */
export const ROWS_PER_GROUP = 20;
/** Rowids a step counts at most: a few milliseconds of a scan of a Gold table whose entity column has no index. */
export const SLICE_ROWIDS = 32_768;
/** The most slices a table is counted in; a table whose rowids span more is counted in one step. */
const MAX_SLICES = 4096;


/**
 * The rows of one Gold table whose entity column equals the ID and, for a table with a time column, whose month
 * is `timeBucket`: `count` exact, `rows` the first ROWS_PER_GROUP in table order. Counted in steps: a rowid table
 * a slice of SLICE_ROWIDS rowids per step (the first rows come from the first slices that hold any), any other
 * table, or one whose rowids span more than MAX_SLICES slices, in one step.
 */
export class GoldTableCount {
  count = 0;
  readonly rows: Record<string, unknown>[] = [];
  done = false;
  private readonly from: string;
  private readonly values: string[];
  /** The next slice's first rowid and the table's last one; null: counted in one step. */
  private slices: { next: number; hi: number; count: Database.Statement; rows: Database.Statement } | null = null;

  constructor(
    private readonly db: Database.Database,
    readonly gold: GoldTable,
    query: EntityQuery,
  ) {
    const conditions = [`${quoteIdentifier(gold.entityColumn)} = ?`];
    this.values = [query.entityId];
    if (query.timeBucket !== null && gold.timeColumn !== null) {
      conditions.push(`substr(CAST(${quoteIdentifier(gold.timeColumn)} AS TEXT), 1, 7) = ?`);
      this.values.push(query.timeBucket);
    }
    const table = quoteIdentifier(gold.table);
    this.from = `FROM ${table} WHERE ${conditions.join(' AND ')}`;
    // a column named rowid would stand for the rowid in the slices' conditions
    if (!hasRowid(db, gold.table) || columnsOf(db, gold.table).some((c) => c.toLowerCase() === 'rowid')) return;
    // two statements: SQLite answers a lone min() or max() of the rowid with one b-tree seek
    const lo = db.prepare(`SELECT min(rowid) FROM ${table}`).pluck().safeIntegers(true).get() as bigint | null;
    const hi = db.prepare(`SELECT max(rowid) FROM ${table}`).pluck().safeIntegers(true).get() as bigint | null;
    if (lo === null || hi === null) {
      this.done = true; // empty
      return;
    }
    const safe = (n: bigint): boolean => n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER - SLICE_ROWIDS);
    if (!safe(lo) || !safe(hi) || hi - lo >= BigInt(MAX_SLICES * SLICE_ROWIDS)) return;
    const slice = `FROM ${table} WHERE rowid >= ? AND rowid < ? AND ${conditions.join(' AND ')}`;
    this.slices = {
      next: Number(lo),
      hi: Number(hi),
      count: db.prepare(`SELECT count(*) ${slice}`).pluck(),
      rows: db.prepare(`SELECT * ${slice} ORDER BY rowid LIMIT ?`),
    };
  }

  /** Counts the next slice (or the whole table); `done` once every row is counted. */
  step(): void {
    if (this.done) return;
    const slices = this.slices;
    if (slices === null) {
      this.count = this.db.prepare(`SELECT count(*) ${this.from}`).pluck().get(...this.values) as number;
      if (this.count > 0) this.rows.push(...(this.db.prepare(`SELECT * ${this.from} LIMIT ${ROWS_PER_GROUP}`).all(...this.values) as Record<string, unknown>[]).map(toApiRecord));
      this.done = true;
      return;
    }
    const end = slices.next + SLICE_ROWIDS;
    const counted = slices.count.get(slices.next, end, ...this.values) as number;
    this.count += counted;
    if (counted > 0 && this.rows.length < ROWS_PER_GROUP) {
      const rows = slices.rows.all(slices.next, end, ...this.values, ROWS_PER_GROUP - this.rows.length) as Record<string, unknown>[];
      this.rows.push(...rows.map(toApiRecord));
    }
    slices.next = end;
    if (slices.next > slices.hi) this.done = true;
  }

  /** The group, once done, of a table with at least one matching row. */
  group(locale: Locale): ExplainGroup | null {
    return this.count === 0 ? null : { table: this.gold.table, label: this.gold.label[locale], count: this.count, rows: this.rows };
  }
}

/** A raw Gold record as JSON: BLOB values as base64 text, every other value as stored. */
export function toApiRecord(row: Record<string, unknown>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    record[column] = Buffer.isBuffer(value) ? value.toString('base64') : typeof value === 'bigint' ? Number(value) : value;
  }
  return record;
}
