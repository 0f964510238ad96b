import { Problem } from '../common/problems.js';
import { UNCOUNTED, type Count } from '../metrics/metrics.js';
import type { Readers } from '../reader-threads/protocol.js';
import type { Missing } from '../common/missing.js';
import type { DimensionExport, DimensionExports } from '../ports/tenant-reads.js';
import type { TenantEntry, Tenants } from '../tenants/tenants.js';
import { csvExportStream } from './csv-export-stream.js';
import { findDimensionTable, type DimensionTable } from './dimension-table.js';
import { inodeOf, openExportConnection } from './export-connection.js';
import { readExportOptions, type ExportOptions } from './export-options.js';
import { ExportNotStarted, exportOnReaders } from './reader-export.js';

/** The most rows one export writes (API description, Limits). */
export const MAX_EXPORT_ROWS = 1_000_000;
/** Seconds a client is asked to wait when the tenant file was swapped (or removed) just as its export started. */
const SWAPPED_RETRY_AFTER_S = 1;

/**
 * CSV exports of dimension tables. The table and options are checked on the main thread (a few catalogue reads);
 * everything that grows with the table (the truncation probe, the rows, their encoding) runs on the readers, which
 * read the same file (by inode: 503 with Retry-After when it was swapped or removed in between) and send the CSV a
 * chunk at a time. A lease of the tenant's file is held until the stream ends or is destroyed and the reader has
 * let go of the file.
 */
export class DimensionCsvExports implements DimensionExports {
  constructor(
    private readonly tenants: Pick<Tenants, 'lease'>,
    /** Where the file is read: reader threads, or the main thread in bounded steps (READER_THREADS). */
    private readonly readers: Readers,
    /** Moved by the data rows written once a stream ends or is destroyed (metrics). */
    private readonly exportedRows: Count = UNCOUNTED,
    /** The most rows one export writes (tests use a small cap to see truncation). */
    private readonly maxRows: number = MAX_EXPORT_ROWS,
  ) {}

  async start(entry: TenantEntry, entity: string, query: Readonly<Record<string, unknown>>, declaredQuery: readonly string[]): Promise<DimensionExport | Missing> {
    const lease = await this.tenants.lease(entry);
    let leased = true;
    try {
      const file = lease.db.name;
      if (inodeOf(file) === null) throw swapped(entry.compositeId);
      const checked = checkRequest(file, entity, query, declaredQuery);
      if (checked === null) return { missing: `"${entity}" is not a dimension of tenant "${entry.compositeId}"` };
      const { inode, table, options } = checked;
      if (inode === null) throw swapped(entry.compositeId);
      let started;
      try {
        started = await exportOnReaders(this.readers, { file, inode, table, options, cap: this.maxRows });
      } catch (err) {
        if (err instanceof ExportNotStarted && err.replaced) throw swapped(entry.compositeId);
        throw err;
      }
      const { chunks, finished } = started;
      leased = false; // the stream releases it now
      const csv = csvExportStream(
        table.columns.map((c) => c.name),
        chunks,
        () => {
          this.exportedRows.inc(chunks.rows);
          void finished.then(() => lease.release());
        },
      );
      return {
        entity: table.entity,
        truncated: started.truncated,
        csv,
        get rows() {
          return chunks.rows;
        },
      };
    } finally {
      if (leased) lease.release();
    }
  }
}

/**
 * The table and options of the request, read on a connection of its own to `file` (the tenant's shared one may be
 * busy), with the inode it opened (null when the path named another file after opening it than before); null when
 * the entity is not a dimension. Throws 400 for bad options.
 */
function checkRequest(file: string, entity: string, query: Readonly<Record<string, unknown>>, declaredQuery: readonly string[]): { inode: number | null; table: DimensionTable; options: ExportOptions } | null {
  const inodeBefore = inodeOf(file);
  const db = openExportConnection(file);
  try {
    const inode = inodeBefore !== null && inodeOf(file) === inodeBefore ? inodeBefore : null;
    const table = findDimensionTable(db, entity);
    if (table === null) return null;
    return { inode, table, options: readExportOptions(query, table, declaredQuery) };
  } finally {
    db.close();
  }
}

const swapped = (tenant: string): Problem =>
  new Problem('tenant-unavailable', `the file of tenant "${tenant}" was replaced or removed as the export started; retry`, { retryAfterSeconds: SWAPPED_RETRY_AFTER_S });
