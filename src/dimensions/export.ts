import type Database from 'better-sqlite3';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { UNCOUNTED, type Count } from '../metrics/metrics.js';
import type { Tenants } from '../tenants/tenants.js';
import { CsvExportStream, rowChunks, type CsvChunks } from './csv-export-stream.js';
import { findDimensionTable, type DimensionTable } from './dimension-table.js';
import { openExportConnection, rowCeiling } from './export-connection.js';
import { readExportOptions, type ExportOptions } from './export-options.js';
import { exportSelect, matchProbe } from './export-sql.js';
import { parallelChunks, planParallelExport } from './parallel-export.js';

/** The most rows one export writes (API description, Limits). */
export const MAX_EXPORT_ROWS = 1_000_000;
/** Rows the truncation probe steps through per event-loop turn. */
const PROBE_ROWS_PER_TURN = 50_000;

/** A started export: the CSV stream and whether rows beyond the cap were left out. */
export interface DimensionExport {
  entity: string;
  truncated: boolean;
  csv: Readable;
}

/** What the caller asks for: tenant value, entity key and the raw query (declared names + `f.<column>`). */
export interface ExportRequest {
  tenant: string;
  entity: string;
  query: Readonly<Record<string, unknown>>;
  /** Query names the contract declares (everything else must be a column filter). */
  declaredQuery: readonly string[];
  /** Row cap; MAX_EXPORT_ROWS unless given (tests use a small one to see truncation). */
  maxRows?: number;
  /** Moved by the data rows written once the stream ends or is destroyed (metrics); uncounted unless given. */
  exportedRows?: Count;
}

/**
 * Starts a CSV export of a dimension table, or answers `{missing}` for an unknown entity. Reads on a
 * connection of its own (an open iterator would make the tenant's shared connection refuse pragmas and
 * exec), holds a registry lease until the stream ends or is destroyed, and throws 400 for bad options.
 */
export async function startDimensionExport(tenants: Tenants, request: ExportRequest): Promise<DimensionExport | { missing: string }> {
  const lease = tenants.lease(tenants.resolve(request.tenant));
  let db: Database.Database | null = null;
  try {
    const file = lease.db.name;
    const inodeBefore = inodeOf(file);
    db = openExportConnection(file);
    // the inode the connection opened, when the path named the same file before and after opening it
    const inode = inodeBefore !== null && inodeOf(file) === inodeBefore ? inodeBefore : null;
    const table = findDimensionTable(db, request.entity);
    if (table === null) {
      return { missing: `"${request.entity}" is not a dimension of tenant "${lease.entry.compositeId}"` };
    }
    const options = readExportOptions(request.query, table, request.declaredQuery);
    const cap = request.maxRows ?? MAX_EXPORT_ROWS;
    const truncated = await matchesMoreThan(db, table, options, cap, rowCeiling(db, table));
    const plan = inode === null ? null : planParallelExport(db, table, options, truncated);
    let chunks: CsvChunks | null = plan === null ? null : await parallelChunks(db, file, inode as number, table, options, plan);
    if (chunks === null) {
      const select = exportSelect(table, options, cap);
      chunks = rowChunks(db.prepare(select.sql).raw(true).safeIntegers(true).iterate(...select.params) as Iterator<unknown[]>);
    }
    const connection = db;
    db = null; // the stream owns it now
    const source = chunks;
    const exportedRows = request.exportedRows ?? UNCOUNTED;
    const csv = new CsvExportStream({
      header: table.columns.map((c) => c.name),
      chunks: source,
      release: () => {
        exportedRows.inc(source.rows);
        connection.close();
        lease.release();
      },
    });
    return { entity: table.entity, truncated, csv };
  } finally {
    if (db !== null) {
      db.close();
      lease.release();
    }
  }
}

function inodeOf(file: string): number | null {
  try {
    return fs.statSync(file).ino;
  } catch {
    return null;
  }
}

/**
 * Whether more than `cap` rows match. Free when the table cannot hold more (`ceiling`, rowCeiling); otherwise
 * the matching rows are stepped through in slices, yielding between them.
 */
async function matchesMoreThan(db: Database.Database, table: DimensionTable, options: ExportOptions, cap: number, ceiling: number): Promise<boolean> {
  if (ceiling <= cap) return false;
  const probe = matchProbe(table, options, cap + 1);
  const rows = db.prepare(probe.sql).pluck().iterate(...probe.params);
  let matched = 0;
  try {
    for (;;) {
      for (let i = 0; i < PROBE_ROWS_PER_TURN; i += 1) {
        if (rows.next().done === true) return false;
        matched += 1;
        if (matched > cap) return true;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    rows.return?.();
  }
}
