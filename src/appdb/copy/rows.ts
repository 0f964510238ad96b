import { createHash, type Hash } from 'node:crypto';
import { CopyFailure } from './failures.js';

/*
 * The canonical form of a row, which the checksums of both sides are computed over. The migrations make only text
 * (`varchar`, `text`: times, JSON and IDs are text) and integer columns, on SQLite and PostgreSQL alike; the copy
 * moves such values as they are and refuses a column of any other type rather than guess its conversion (a
 * `timestamptz`, `jsonb` or `boolean` column would need one). A row's canonical form is the JSON array of its
 * values in the order of its column names, integers as decimal text; rows are hashed in the order of their primary
 * key, bytewise (SQLite's BINARY collation, PostgreSQL's "C"), so that the checksum does not depend on how either
 * database orders text or where it put the rows.
 */

/** The kinds of column the copy moves. */
export type ColumnKind = 'text' | 'integer';

/** A column as both sides must have it. */
export interface Column {
  readonly name: string;
  readonly kind: ColumnKind;
}

/** A table as the copy reads and writes it: its columns by name and its primary key. */
export interface TableShape {
  readonly name: string;
  /** Sorted by name: the order of the canonical form, of every SELECT and of every INSERT. */
  readonly columns: readonly Column[];
  /** Primary key columns, in key order. */
  readonly key: readonly Column[];
}

const TEXT_TYPES = /^(varchar|character varying|text|character|char|clob)(\s*\(\d+\))?$/i;
const INTEGER_TYPES = /^(integer|int|int2|int4|int8|smallint|bigint)$/i;

/** The kind of a column by its declared type (SQLite's `PRAGMA table_info`, PostgreSQL's `data_type`); null for any other. */
export function columnKind(declaredType: string): ColumnKind | null {
  const type = declaredType.trim();
  if (TEXT_TYPES.test(type)) return 'text';
  if (INTEGER_TYPES.test(type)) return 'integer';
  return null;
}

/** `value` of an integer column as decimal text; null when it is no integer (SQLite keeps what it is given). */
function integerText(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) return BigInt(value).toString();
  return null;
}

/**
 * The canonical form of one row (values in the shape's column order); a CopyFailure naming the table, the row's key
 * and the column when a value does not fit its column's kind.
 */
export function canonicalRow(shape: TableShape, row: readonly unknown[]): string {
  const values: (string | null)[] = new Array(row.length);
  for (let i = 0; i < row.length; i += 1) {
    const value = row[i];
    const column = shape.columns[i]!;
    if (value === null || value === undefined) values[i] = null;
    else if (column.kind === 'text' && typeof value === 'string') values[i] = value;
    else {
      const text = column.kind === 'integer' ? integerText(value) : null;
      if (text === null) throw new CopyFailure(`${shape.name} ${describeKey(shape, row)}: ${column.name} holds ${describeValue(value)}, not ${column.kind === 'text' ? 'text' : 'an integer'}`);
      values[i] = text;
    }
  }
  return JSON.stringify(values);
}

/** `key=value` of a row's primary key, for messages. */
export function describeKey(shape: TableShape, row: readonly unknown[]): string {
  return shape.key.map((k) => `${k.name}=${String(row[shape.columns.findIndex((c) => c.name === k.name)])}`).join(', ');
}

function describeValue(value: unknown): string {
  if (Buffer.isBuffer(value)) return `a blob of ${value.length} bytes`;
  return `${typeof value} ${String(value).slice(0, 40)}`;
}

/** The count and SHA-256 of a table's canonical rows, fed in key order. */
export class TableDigest {
  private readonly hash: Hash = createHash('sha256');
  private count = 0;

  constructor(private readonly shape: TableShape) {}

  /** Adds one row (values in the shape's column order). */
  add(row: readonly unknown[]): void {
    this.hash.update(canonicalRow(this.shape, row));
    this.hash.update('\n');
    this.count += 1;
  }

  /** The rows added and the hex digest over them; ends the digest. */
  result(): { rows: number; sha256: string } {
    return { rows: this.count, sha256: this.hash.digest('hex') };
  }
}
