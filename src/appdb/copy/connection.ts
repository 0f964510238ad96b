import type { TableShape } from './rows.js';

/** A table as a database's catalog describes it. */
export interface CatalogTable {
  /** Columns in the table's order, each with its declared type. */
  readonly columns: readonly { name: string; type: string }[];
  /** Primary key columns in key order. */
  readonly key: readonly string[];
}

/**
 * What the copy needs of one app database, on one connection, for SQLite (better-sqlite3) and PostgreSQL (pg):
 * its catalog, one transaction (a read snapshot on the source, the write on the target), rows read in key order
 * and rows written. Table and column names reach SQL text only through `quoted` (tables.ts).
 */
export interface CopyConnection {
  readonly kind: 'sqlite' | 'postgres';
  /** The names of the tables (SQLite: of the file; PostgreSQL: of the connection's current schema). */
  tableNames(): Promise<string[]>;
  /** The table's columns and primary key; null when there is no such table. */
  describe(table: string): Promise<CatalogTable | null>;
  /** Rows of a statement without parameters, as objects. */
  query(sql: string): Promise<Record<string, unknown>[]>;
  /** How many rows the table holds. */
  count(table: string): Promise<number>;
  /** Starts the read transaction every later read sees one snapshot of (SQLite: over WAL; PostgreSQL: REPEATABLE READ READ ONLY). */
  beginSnapshot(): Promise<void>;
  /**
   * Starts the write transaction and holds off every other writer of `tables` until it ends (SQLite: BEGIN
   * IMMEDIATE; PostgreSQL: LOCK TABLE … IN EXCLUSIVE MODE, reads go on), waiting at most `lockWaitMs`.
   */
  beginWrite(tables: readonly string[], lockWaitMs: number): Promise<void>;
  commit(): Promise<void>;
  /** Rolls back the open transaction, if any; never throws. */
  rollback(): Promise<void>;
  /** Every row of the table, values in the shape's column order, in key order (bytewise for text), in batches. */
  rowsInKeyOrder(shape: TableShape, batchSize: number): AsyncIterable<unknown[][]>;
  /** Deletes every row of the table (inside the write transaction). */
  deleteAll(table: string): Promise<void>;
  /** Inserts rows (values in the shape's column order) inside the write transaction. */
  insert(shape: TableShape, rows: readonly (readonly unknown[])[]): Promise<void>;
  /** Sets every sequence owned by the table's columns past their highest value (PostgreSQL; SQLite keeps its own). */
  continueSequences(table: string): Promise<void>;
  close(): Promise<void>;
}
