import { isUtf8 } from 'node:buffer';
import type Database from 'better-sqlite3';
import { csvField } from './csv.js';
import { CHUNK_BYTES, encodeRowsInto, type EncodedRows } from './csv-chunks.js';
import { quoteIdentifier, type DimensionTable } from './dimension-table.js';
import { filterConditions, type SqlStatement } from './export-sql.js';

// A rowid block of a large export, encoded from JSON that SQLite writes: one statement answers the whole block as
// one BLOB of `json_array(…)` lines (SQLite escapes the text in C), and the lines are turned into CSV records byte
// by byte, copying the text of every field that needs no unescaping. Reading the rows one by one through
// better-sqlite3 made a JavaScript string of every value (8 per row) and an array per row through V8's slow API
// path; this reads one Buffer per block. The records are byte for byte what csvRecord writes for the same rows
// (test/unit/json-block.test.ts): a field with an escape, and every REAL that does not print as digits and ".0",
// goes through csvField; a block holding a BLOB (which json_array refuses) or text that is not valid UTF-8 is
// read row by row as before.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE = 0x5d;
const NEWLINE = 0x0a;
const APOSTROPHE = 0x27;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

/** Most bytes a record can take per byte of its JSON line (an escape such as `\u0001` is 6 bytes, its field ≥ 1). */
const RECORD_BYTES_PER_JSON_BYTE = 6;

/** The statements of a block: its JSON lines, and its rows for the blocks JSON cannot carry. */
export interface BlockStatements {
  /** One BLOB (null for an empty block): the block's rows as `json_array` lines joined by LF, in rowid order. */
  json: Database.Statement;
  /** The block's rows, raw, in rowid order (the same WHERE). */
  rows: Database.Statement;
  /** Parameters after the block's `rowid >= ?` and `rowid < ?`. */
  params: SqlStatement['params'];
}

/** The SELECT of one block's rows (`rowid >= ? AND rowid < ?`, then the filters' parameters), and of its JSON lines. */
export function blockSql(table: DimensionTable, filter: ReturnType<typeof filterConditions>): { rows: string; json: string } {
  const columns = table.columns.map((c) => quoteIdentifier(c.name)).join(', ');
  const where = ['rowid >= ?', 'rowid < ?', ...filter.conditions].join(' AND ');
  const from = `FROM ${quoteIdentifier(table.tableName)} WHERE ${where} ORDER BY rowid`;
  return {
    rows: `SELECT ${columns} ${from}`,
    // group_concat's order is arbitrary unless it has an ORDER BY of its own (SQLite 3.44+); an ordered subquery
    // gives it rows in order today but no promise. The ORDER BY costs a sort of the block's lines (4,096 rows).
    json: `SELECT CAST(group_concat(json_array(${columns}), char(10) ORDER BY rowid) AS BLOB) FROM ${quoteIdentifier(table.tableName)} WHERE ${where}`,
  };
}

/** Prepares the block statements on `db` (the main thread's or the worker's connection). */
export function prepareBlockStatements(db: Database.Database, sql: { rows: string; json: string }, params: SqlStatement['params']): BlockStatements {
  return { json: db.prepare(sql.json).pluck(), rows: db.prepare(sql.rows).raw(true).safeIntegers(true), params };
}

/** Encodes one block of rowids [lo, hi) into chunks, from its JSON lines where it can. */
export class BlockEncoder {
  private started = false;
  private json: Buffer | null = null;
  private at = 0;
  private rows: Iterator<unknown[]> | null = null;

  constructor(
    private readonly statements: BlockStatements,
    private readonly lo: number,
    private readonly hi: number,
  ) {}

  /** Like encodeRowsInto: records into `target` until about CHUNK_BYTES are used; `done` when the block is. */
  encodeInto(target: Buffer): EncodedRows {
    if (!this.started) {
      this.started = true;
      this.json = this.readJson();
    }
    if (this.rows !== null) return encodeRowsInto(this.rows, target);
    const json = this.json;
    let used = 0;
    let records = 0;
    while (json !== null && this.at < json.length && used < CHUNK_BYTES) {
      let end = json.indexOf(NEWLINE, this.at);
      if (end === -1) end = json.length;
      const most = (end - this.at) * RECORD_BYTES_PER_JSON_BYTE + 2;
      if (most > target.length - used) {
        // a record that may not fit the room left gets a buffer of its own, sent right after the chunk
        const own = Buffer.allocUnsafe(most);
        const length = transcodeLine(json, this.at, end, own, 0);
        this.at = end + 1;
        return { used, done: this.at >= json.length, long: own.subarray(0, length), records: records + 1 };
      }
      used = transcodeLine(json, this.at, end, target, used);
      records += 1;
      this.at = end + 1;
    }
    return { used, done: json === null || this.at >= json.length, long: null, records };
  }

  /** Stops reading the block. */
  close(): void {
    this.rows?.return?.();
    this.rows = null;
  }

  /** The block's JSON lines; null (and `rows` set) when the block must be read row by row, or when it is empty. */
  private readJson(): Buffer | null {
    const { json, rows, params } = this.statements;
    let lines: Buffer | null;
    try {
      lines = json.get(this.lo, this.hi, ...params) as Buffer | null;
    } catch {
      // json_array refuses BLOB values; the rows say what else went wrong, if anything did
      lines = null;
      this.rows = rows.iterate(this.lo, this.hi, ...params) as Iterator<unknown[]>;
      return null;
    }
    if (lines !== null && !isUtf8(lines)) {
      // better-sqlite3 decodes invalid UTF-8 into U+FFFD; copying the bytes would not
      this.rows = rows.iterate(this.lo, this.hi, ...params) as Iterator<unknown[]>;
      return null;
    }
    return lines;
  }
}

/**
 * Writes the CSV record (CRLF included) of the `json_array` line json[from, end) into `out` at `at`, which has
 * room for RECORD_BYTES_PER_JSON_BYTE bytes per byte of the line plus 2; answers where the record ends.
 */
export function transcodeLine(json: Buffer, from: number, end: number, out: Buffer, at: number): number {
  let i = from + 1; // after '['
  let pos = at;
  let first = true;
  while (i < end) {
    const c = json[i]!;
    if (c === CLOSE) break;
    if (c === COMMA) {
      i += 1;
      continue;
    }
    if (!first) out[pos++] = COMMA;
    first = false;
    if (c === QUOTE) {
      // text: copied as it is unless it holds an escape
      const start = i + 1;
      const lead = json[start]!;
      // = + - @ lead a formula: a leading ' and quotes (TAB and CR arrive escaped)
      const formula = lead === 0x3d || lead === 0x2b || lead === MINUS || lead === 0x40;
      let field = formula ? pos + 2 : pos;
      let comma = false;
      let j = start;
      for (;;) {
        const b = json[j]!;
        if (b === QUOTE || b === BACKSLASH) break;
        if (b === COMMA) comma = true;
        out[field++] = b;
        j += 1;
      }
      if (json[j] === BACKSLASH) {
        // an escape: decode the whole JSON string and let csvField write it
        let close = j;
        while (json[close] !== QUOTE) close += json[close] === BACKSLASH ? 2 : 1;
        pos += out.write(csvField(JSON.parse(json.toString('utf8', i, close + 1)) as string), pos, 'utf8');
        i = close + 1;
        continue;
      }
      if (formula) {
        out[pos] = QUOTE;
        out[pos + 1] = APOSTROPHE;
        out[field++] = QUOTE;
      } else if (comma) {
        out.copyWithin(pos + 1, pos, field);
        out[pos] = QUOTE;
        field += 1;
        out[field++] = QUOTE;
      }
      pos = field;
      i = j + 1;
      continue;
    }
    // a number or null
    let j = i;
    let dot = -1;
    let exponent = false;
    for (;;) {
      const b = json[j]!;
      if (b === COMMA || b === CLOSE) break;
      if (b === DOT) dot = j;
      else if (b === 0x65 || b === 0x45) exponent = true;
      j += 1;
    }
    if (c === 0x6e) {
      // null: an empty field
    } else if (dot === -1 && !exponent) {
      // an INTEGER: its digits, as String(bigint) writes them
      pos += json.copy(out, pos, i, j);
    } else if (!exponent && dot === j - 2 && json[j - 1] === ZERO && dot - i - (c === MINUS ? 1 : 0) <= 15 && !(c === MINUS && dot === i + 2 && json[i + 1] === ZERO)) {
      // a REAL with a whole value below 10^15 ("2450.0"): the digits before the dot, as String(number) writes
      // them (larger ones it writes as the shortest digits that read back as the same number, then zeros)
      pos += json.copy(out, pos, i, dot);
    } else {
      pos += out.write(String(Number(json.toString('latin1', i, j))), pos, 'latin1');
    }
    i = j;
  }
  out[pos++] = 0x0d;
  out[pos++] = NEWLINE;
  return pos;
}
