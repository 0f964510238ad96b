import type Database from 'better-sqlite3';

/** Storage type of a column (booleans are INTEGER 0/1). */
export type SqlType = 'TEXT' | 'INTEGER' | 'REAL' | 'BLOB';

/** A value as stored in a demo table. */
export type SqlValue = string | number | Buffer | null;

/** A row keyed by column name. */
export type Row = Readonly<Record<string, SqlValue>>;

/** One column of a demo table. */
export interface ColumnSpec {
  readonly name: string;
  readonly type: SqlType;
}

/** A demo table: name, columns in table order, optional primary key. */
export interface TableSpec {
  readonly name: string;
  readonly columns: readonly ColumnSpec[];
  readonly primaryKey: readonly string[];
}

/** Defines a table from `"a TEXT, b REAL"`; a `*` after a type marks a primary-key column. */
export function defineTable(name: string, columns: string): TableSpec {
  const specs: ColumnSpec[] = [];
  const primaryKey: string[] = [];
  for (const part of columns.split(',')) {
    const [column, rawType] = part.trim().split(/\s+/);
    const type = (rawType ?? '').replace('*', '');
    if (!column || !['TEXT', 'INTEGER', 'REAL', 'BLOB'].includes(type)) {
      throw new Error(`bad column definition "${part}" in ${name}`);
    }
    specs.push({ name: column, type: type as SqlType });
    if (rawType?.endsWith('*')) primaryKey.push(column);
  }
  return { name, columns: specs, primaryKey };
}

/** Creates the table (and an index on each listed column). */
export function createTable(db: Database.Database, spec: TableSpec, indexed: readonly string[] = []): void {
  const columns = spec.columns.map((column) => `"${column.name}" ${column.type}`);
  if (spec.primaryKey.length > 0) {
    columns.push(`PRIMARY KEY (${spec.primaryKey.map((key) => `"${key}"`).join(', ')})`);
  }
  db.exec(`CREATE TABLE "${spec.name}" (${columns.join(', ')})`);
  for (const column of indexed) {
    db.exec(`CREATE INDEX "${spec.name}_${column}" ON "${spec.name}" ("${column}")`);
  }
}

/** Inserts value arrays (in column order) in one transaction; `onBatch` is told every `batchSize` rows. */
export function insertValues(
  db: Database.Database,
  spec: TableSpec,
  rows: Iterable<readonly SqlValue[]>,
  onBatch?: (rowsDone: number) => void,
  batchSize = 50000,
): number {
  const placeholders = spec.columns.map(() => '?').join(', ');
  const statement = db.prepare(`INSERT INTO "${spec.name}" VALUES (${placeholders})`);
  let count = 0;
  db.transaction(() => {
    for (const row of rows) {
      statement.run(row);
      count++;
      if (onBatch && count % batchSize === 0) onBatch(count);
    }
  })();
  return count;
}

/** Inserts rows keyed by column name (missing columns become NULL) in one transaction. */
export function insertRows(db: Database.Database, spec: TableSpec, rows: Iterable<Row>): number {
  return insertValues(db, spec, mapRows(spec, rows));
}

function* mapRows(spec: TableSpec, rows: Iterable<Row>): Generator<SqlValue[]> {
  for (const row of rows) yield spec.columns.map((column) => row[column.name] ?? null);
}

/** Creates the table and fills it from rows keyed by column name. */
export function writeTable(db: Database.Database, spec: TableSpec, rows: Iterable<Row>, indexed: readonly string[] = []): number {
  createTable(db, spec, indexed);
  return insertRows(db, spec, rows);
}
