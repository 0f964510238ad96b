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
   * What the database is, whatever URL reached it: SQLite the file's device and inode, PostgreSQL the cluster's
   * system identifier and the database. Two connections with one identity reach one database.
   */
  identity(): Promise<string>;
  /**
   * Starts the write transaction the migrations and the copy run in, waiting at most `lockWaitMs` for locks from
   * now to its end (SQLite: BEGIN IMMEDIATE, which holds off every other writer; PostgreSQL: the migrations'
   * advisory lock).
   */
  beginWrite(lockWaitMs: number): Promise<void>;
  /** Holds off every other writer of `tables` until the transaction ends (PostgreSQL: LOCK TABLE … IN EXCLUSIVE MODE, reads go on). */
  lockTables(tables: readonly string[]): Promise<void>;
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
