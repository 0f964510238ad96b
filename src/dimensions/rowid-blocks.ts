import type Database from 'better-sqlite3';
import type { ChunkEncoder, EncodedRows } from './csv-chunks.js';
import { rowidAddressable, type DimensionTable } from './dimension-table.js';
import { rowidRange } from './export-connection.js';
import type { ExportOptions } from './export-options.js';
import { filterConditions } from './export-sql.js';
import { BlockEncoder, blockSql, prepareBlockStatements } from './json-block.js';

// An unsorted export of a rowid table is read in blocks of BLOCK_ROWIDS rowids, in rowid order (which is table
// order), each block from the JSON lines SQLite writes for it (json-block.ts). A block costs at most a scan of its
// own rowids however little the filters match, so one call of encodeInto does a bounded amount of work.

/** Rowids per block. */
export const BLOCK_ROWIDS = 4096;
/** The most blocks an export walks (a rowid span of 4,194,304: four rowids per row at the row cap). */
export const MAX_BLOCKS = 1024;
/** Blocks one call of encodeInto starts at most, even when they held no matching row. */
const BLOCKS_PER_CALL = 16;

/** Where the blocks start and how many there are. */
export interface BlockPlan {
  lo: number;
  blocks: number;
}

/**
 * The blocks of an export, or null when it is read row by row: sorted, cut at the row cap, no rowid to go by
 * (WITHOUT ROWID, or a column named rowid), an empty table, or a rowid span of more than MAX_BLOCKS blocks.
 * Two b-tree seeks, whatever the size of the table.
 */
export function planBlocks(db: Database.Database, table: DimensionTable, options: ExportOptions, truncated: boolean): BlockPlan | null {
  if (truncated || options.sort !== undefined || !rowidAddressable(table)) return null;
  const range = rowidRange(db, table);
  if (range === null) return null;
  const { lo, hi } = range;
  if (lo < BigInt(Number.MIN_SAFE_INTEGER) || hi > BigInt(Number.MAX_SAFE_INTEGER - 2 * BLOCK_ROWIDS)) return null;
  const span = Number(hi - lo) + 1;
  if (span > MAX_BLOCKS * BLOCK_ROWIDS) return null;
  return { lo: Number(lo), blocks: Math.ceil(span / BLOCK_ROWIDS) };
}

/** The records of the planned blocks, in rowid order; a call starts at most BLOCKS_PER_CALL blocks. */
export function blockEncoder(db: Database.Database, table: DimensionTable, options: ExportOptions, plan: BlockPlan): ChunkEncoder {
  const filter = filterConditions(table, options);
  const statements = prepareBlockStatements(db, blockSql(table, filter), filter.params);
  let block = 0;
  let encoder: BlockEncoder | null = null;
  return {
    encodeInto(target: Buffer): EncodedRows {
      let records = 0;
      for (let started = 0; block < plan.blocks && started < BLOCKS_PER_CALL; ) {
        if (encoder === null) {
          encoder = new BlockEncoder(statements, plan.lo + block * BLOCK_ROWIDS, plan.lo + (block + 1) * BLOCK_ROWIDS);
          started += 1;
        }
        const encoded = encoder.encodeInto(target);
        records += encoded.records;
        if (encoded.done) {
          encoder = null;
          block += 1;
        }
        if (encoded.used > 0 || encoded.long !== null) return { ...encoded, done: block >= plan.blocks, records };
      }
      return { used: 0, done: block >= plan.blocks, long: null, records };
    },
    close(): void {
      encoder?.close();
      encoder = null;
    },
  };
}
