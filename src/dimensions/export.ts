import type { Readable } from 'node:stream';
import { HttpProblem } from '../http/errors.js';
import { UNCOUNTED, type Count } from '../metrics/metrics.js';
import type { Readers } from '../reader-threads/protocol.js';
import type { Tenants } from '../tenants/tenants.js';
import { csvExportStream } from './csv-export-stream.js';
import { findDimensionTable, type DimensionTable } from './dimension-table.js';
import { inodeOf, openExportConnection } from './export-connection.js';
import { readExportOptions, type ExportOptions } from './export-options.js';
import { ExportNotStarted, exportOnReaders } from './reader-export.js';

/** The most rows one export writes (API description, Limits). */
export const MAX_EXPORT_ROWS = 1_000_000;
/** Seconds a client is asked to wait when the tenant file was swapped (or removed) just as its export started. */
const SWAPPED_RETRY_AFTER_S = 1;

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
  /** Where the file is read: reader threads, or the main thread in bounded steps (READER_THREADS). */
  readers: Readers;
}

/**
 * Starts a CSV export of a dimension table, or answers `{missing}` for an unknown entity; throws 400 for bad
 * options. The table and options are checked on the main thread (a few catalogue reads); everything that grows
 * with the table (the truncation probe, the rows, their encoding) runs on the readers, which read the same file
 * (by inode: 503 with Retry-After when it was swapped or removed in between) and send the CSV a chunk at a time.
 * A registry lease is held until the stream ends or is destroyed and the reader has let go of the file.
 */
export async function startDimensionExport(tenants: Tenants, request: ExportRequest): Promise<DimensionExport | { missing: string }> {
  const lease = await tenants.lease(tenants.resolve(request.tenant));
  let leased = true;
  try {
    const file = lease.db.name;
    if (inodeOf(file) === null) throw swapped(lease.entry.compositeId);
    const checked = checkRequest(file, request);
    if (checked === null) return { missing: `"${request.entity}" is not a dimension of tenant "${lease.entry.compositeId}"` };
    const { inode, table, options } = checked;
    if (inode === null) throw swapped(lease.entry.compositeId);
    let started;
    try {
      started = await exportOnReaders(request.readers, { file, inode, table, options, cap: request.maxRows ?? MAX_EXPORT_ROWS });
    } catch (err) {
      if (err instanceof ExportNotStarted && err.replaced) throw swapped(lease.entry.compositeId);
      throw err;
    }
    const { chunks, finished } = started;
    const exportedRows = request.exportedRows ?? UNCOUNTED;
    leased = false; // the stream releases it now
    const csv = csvExportStream(
      table.columns.map((c) => c.name),
      chunks,
      () => {
        exportedRows.inc(chunks.rows);
        void finished.then(() => lease.release());
      },
    );
    return { entity: table.entity, truncated: started.truncated, csv };
  } finally {
    if (leased) lease.release();
  }
}

/**
 * The table and options of the request, read on a connection of its own to `file` (the tenant's shared one may be
 * busy), with the inode it opened (null when the path named another file after opening it than before); null when
 * the entity is not a dimension. Throws 400 for bad options.
 */
function checkRequest(file: string, request: ExportRequest): { inode: number | null; table: DimensionTable; options: ExportOptions } | null {
  const inodeBefore = inodeOf(file);
  const db = openExportConnection(file);
  try {
    const inode = inodeBefore !== null && inodeOf(file) === inodeBefore ? inodeBefore : null;
    const table = findDimensionTable(db, request.entity);
    if (table === null) return null;
    return { inode, table, options: readExportOptions(request.query, table, request.declaredQuery) };
  } finally {
    db.close();
  }
}

const swapped = (tenant: string): HttpProblem =>
  new HttpProblem('tenant-unavailable', `the file of tenant "${tenant}" was replaced or removed as the export started; retry`, {
    headers: { 'Retry-After': String(SWAPPED_RETRY_AFTER_S) },
  });
