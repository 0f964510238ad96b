import { isUtf8 } from 'node:buffer';
import type Database from 'better-sqlite3';
import { csvField } from './csv.js';
import { CHUNK_BYTES, encodeRowsInto, type EncodedRows } from './csv-chunks.js';
import { quoteIdentifier, type DimensionTable } from './dimension-table.js';
import { filterConditions, type SqlStatement } from './export-sql.js';

// A rowid block of a large export, encoded from JSON that SQLite writes: one statement answers the whole block as
// one BLOB of lines `<rowid>[…]` (the rowid, then a `json_array(…)`: SQLite escapes the text in C), and the lines
// are turned into CSV records, copying the text of every field that needs no unescaping. A line without a
// backslash (most of them) is cut at its quotes and commas; only a line with an escape is read byte by byte.
// Reading the rows one by one through better-sqlite3 made a JavaScript string of every value (8 per row) and an
// array per row through V8's slow API path; this reads one Buffer per block. The records are byte for byte what csvRecord writes for the same rows
// (test/unit/json-block.test.ts): a field with an escape, and every REAL that does not print as digits and ".0",
// goes through csvField; a block holding a BLOB (which json_array refuses) or text that is not valid UTF-8 is
// read row by row as before.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const NEWLINE = 0x0a;
const APOSTROPHE = 0x27;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

/** Most bytes a record can take per byte of its JSON line (an escape such as `\u0001` is 6 bytes, its field ≥ 1). */
const RECORD_BYTES_PER_JSON_BYTE = 6;

/** Bytes of JSON lines read on this thread so far (a reader thread collects the dead blocks by it). */
let jsonBytesRead = 0;

/** Bytes of JSON lines read by block encoders on this thread since it started. */
export const blockBytesRead = (): number => jsonBytesRead;

/** The statements of a block: its JSON lines, and its rows for the blocks JSON cannot carry. */
export interface BlockStatements {
  /**
   * One BLOB (null for an empty block): the block's rows as `<rowid>json_array(…)` lines joined by LF, in the order
   * group_concat met them (in practice rowid order, but SQLite does not promise it).
   */
  json: Database.Statement;
  /** The same lines with group_concat's own ORDER BY rowid: read when `json` answered them out of order. */
  ordered: Database.Statement;
  /** The block's rows, raw, in rowid order (the same WHERE). */
  rows: Database.Statement;
  /** Parameters after the block's `rowid >= ?` and `rowid < ?`. */
  params: SqlStatement['params'];
}

/** The SQL of a block's statements. */
export interface BlockSql {
  rows: string;
  json: string;
  ordered: string;
}

/**
 * The SELECT of one block's rows (`rowid >= ? AND rowid < ?`, then the filters' parameters), and of its JSON
 * lines without and with group_concat's ORDER BY.
 */
export function blockSql(table: DimensionTable, filter: ReturnType<typeof filterConditions>): BlockSql {
  const columns = table.columns.map((c) => quoteIdentifier(c.name)).join(', ');
  const where = ['rowid >= ?', 'rowid < ?', ...filter.conditions].join(' AND ');
  const from = `FROM ${quoteIdentifier(table.tableName)} WHERE ${where}`;
  // group_concat's order is arbitrary unless it has an ORDER BY of its own (SQLite 3.44+), and that ORDER BY sorts
  // the block's lines, which made the statement take about twice as long (docs/decisions/0009). So each line
  // starts with its rowid, the encoder checks that they ascend, and a block that came out of order is read again
  // with the ORDER BY.
  const line = `rowid || json_array(${columns})`;
  return {
    rows: `SELECT ${columns} ${from} ORDER BY rowid`,
    json: `SELECT CAST(group_concat(${line}, char(10)) AS BLOB) ${from}`,
    ordered: `SELECT CAST(group_concat(${line}, char(10) ORDER BY rowid) AS BLOB) ${from}`,
  };
}

/** Prepares the block statements on `db` (the main thread's or the worker's connection). */
export function prepareBlockStatements(db: Database.Database, sql: BlockSql, params: SqlStatement['params']): BlockStatements {
  return { json: db.prepare(sql.json).pluck(), ordered: db.prepare(sql.ordered).pluck(), rows: db.prepare(sql.rows).raw(true).safeIntegers(true), params };
}

/** Encodes one block of rowids [lo, hi) into chunks, from its JSON lines where it can. */
export class BlockEncoder {
  private started = false;
  private json: Buffer | null = null;
  private at = 0;
  /** The first backslash at or after the current line (json.length when none): lines before it hold no escape. */
  private backslash = -1;
  /** Where the plain lines' search for commas stands: each search starts past the comma found before. */
  private readonly commas: CommaScan = { next: -1 };
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
      const open = json.indexOf(OPEN, this.at); // the line's rowid ends here
      if (this.backslash < open) {
        this.backslash = json.indexOf(BACKSLASH, open);
        if (this.backslash === -1) this.backslash = json.length;
      }
      const plain = this.backslash >= end;
      const most = (end - open) * RECORD_BYTES_PER_JSON_BYTE + 2;
      if (most > target.length - used) {
        // a record that may not fit the room left gets a buffer of its own, sent right after the chunk
        const own = Buffer.allocUnsafe(most);
        const length = plain ? transcodePlainLine(json, open, end, own, 0, this.commas) : transcodeLine(json, open, end, own, 0);
        this.at = end + 1;
        return { used, done: this.at >= json.length, long: own.subarray(0, length), records: records + 1 };
      }
      used = plain ? transcodePlainLine(json, open, end, target, used, this.commas) : transcodeLine(json, open, end, target, used);
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
      if (lines !== null && !rowidsAscend(lines)) lines = this.statements.ordered.get(this.lo, this.hi, ...params) as Buffer;
    } catch {
      // json_array refuses BLOB values; the rows say what else went wrong, if anything did
      lines = null;
      this.rows = rows.iterate(this.lo, this.hi, ...params) as Iterator<unknown[]>;
      return null;
    }
    if (lines !== null) jsonBytesRead += lines.length;
    if (lines !== null && !isUtf8(lines)) {
      // better-sqlite3 decodes invalid UTF-8 into U+FFFD; copying the bytes would not
      this.rows = rows.iterate(this.lo, this.hi, ...params) as Iterator<unknown[]>;
      return null;
    }
    return lines;
  }
}

/** Whether the rowids that start the lines of `lines` ascend (each line is `<rowid>[…]`, lines joined by LF). */
export function rowidsAscend(lines: Buffer): boolean {
  let previous = Number.NEGATIVE_INFINITY;
  for (let at = 0; at < lines.length; ) {
    const negative = lines[at] === MINUS;
    let i = negative ? at + 1 : at;
    let rowid = 0;
    for (let b = lines[i]!; b !== OPEN; b = lines[++i]!) rowid = rowid * 10 + (b - ZERO);
    if (negative) rowid = -rowid;
    if (rowid <= previous) return false;
    previous = rowid;
    const end = lines.indexOf(NEWLINE, i);
    if (end === -1) break;
    at = end + 1;
  }
  return true;
}

/** = + - @ lead a formula: such a text gets a leading ' and quotes (TAB and CR, the others, arrive escaped). */
const formulaLead = (byte: number): boolean => byte === 0x3d || byte === 0x2b || byte === MINUS || byte === 0x40;

/** The first comma at or after where a plain line's text field starts (json.length when none). */
export interface CommaScan {
  next: number;
}

/**
 * transcodeLine for a line without a backslash, so without an escape: a text field ends at the next quote and
 * its bytes are copied as they are (quoted when it holds a comma). json[from] is `[`, json[end - 1] is `]`.
 * `commas` carries the last comma found from one call to the next over the same `json`, so that the searches for
 * commas read each byte of it at most once, even where a line holds none (a table of one text column).
 */
export function transcodePlainLine(json: Buffer, from: number, end: number, out: Buffer, at: number, commas: CommaScan): number {
  const last = end - 1;
  let pos = at;
  let i = from + 1;
  while (i < last) {
    const c = json[i]!;
    if (c === COMMA) {
      out[pos++] = COMMA;
      i += 1;
      continue;
    }
    if (c === QUOTE) {
      const start = i + 1;
      const close = json.indexOf(QUOTE, start);
      let quoted = true;
      if (formulaLead(json[start]!)) {
        out[pos++] = QUOTE;
        out[pos++] = APOSTROPHE;
      } else {
        if (commas.next < start) {
          commas.next = json.indexOf(COMMA, start);
          if (commas.next === -1) commas.next = json.length;
        }
        if (commas.next < close) out[pos++] = QUOTE;
        else quoted = false;
      }
      for (let k = start; k < close; k++) out[pos++] = json[k]!;
      if (quoted) out[pos++] = QUOTE;
      i = close + 1;
      continue;
    }
    let j = i + 1;
    while (j < last && json[j] !== COMMA) j += 1;
    pos = writeNumber(json, i, j, out, pos);
    i = j;
  }
  out[pos++] = 0x0d;
  out[pos++] = NEWLINE;
  return pos;
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
    while (json[j] !== COMMA && json[j] !== CLOSE) j += 1;
    pos = writeNumber(json, i, j, out, pos);
    i = j;
  }
  out[pos++] = 0x0d;
  out[pos++] = NEWLINE;
  return pos;
}

/**
 * Writes the JSON number (or null) json[i, j) as String(number) writes the value: an empty field for null; an
 * INTEGER's digits as they are; a REAL as SQLite wrote it where that is already JavaScript's text (a whole value
 * below 10^15 without its ".0"; at most 15 significant digits and no exponent), else through Number and String.
 */
function writeNumber(json: Buffer, i: number, j: number, out: Buffer, at: number): number {
  const c = json[i]!;
  if (c === 0x6e) return at; // null: an empty field
  let pos = at;
  let dot = -1;
  let exponent = false;
  for (let k = i; k < j; k++) {
    const b = json[k]!;
    if (b === DOT) dot = k;
    else if (b === 0x65 || b === 0x45) exponent = true;
  }
  const digits = c === MINUS ? i + 1 : i;
  let copyTo = -1;
  if (dot === -1 && !exponent) {
    copyTo = j; // an INTEGER: its digits, as String(bigint) writes them
  } else if (!exponent && dot === j - 2 && json[j - 1] === ZERO && dot - digits <= 15 && !(c === MINUS && dot === i + 2 && json[i + 1] === ZERO)) {
    // a REAL with a whole value below 10^15 ("2450.0"): the digits before the dot, as String(number) writes them
    // (larger ones it writes as the shortest digits that read back as the same number, then zeros)
    copyTo = dot;
  } else if (!exponent && json[j - 1] !== ZERO && significantDigits(json, digits, j) <= 15) {
    // SQLite writes a REAL as digits that read back as the same number. At most 15 of them are the only such
    // digits of that length (every decimal of 15 significant digits survives a double), so they are the shortest,
    // which String(number) writes, and in the same notation (SQLite uses an exponent below 10^-4, JavaScript
    // below 10^-6; both above 10^15)
    copyTo = j;
  }
  if (copyTo === -1) return pos + out.write(String(Number(json.toString('latin1', i, j))), pos, 'latin1');
  for (let k = i; k < copyTo; k++) out[pos++] = json[k]!;
  return pos;
}

/** Significant digits of the decimal json[from, to) (digits and a dot, no sign): leading zeros do not count. */
function significantDigits(json: Buffer, from: number, to: number): number {
  let k = from;
  while (k < to && (json[k] === ZERO || json[k] === DOT)) k += 1;
  let count = 0;
  for (; k < to; k++) if (json[k] !== DOT) count += 1;
  return count;
}
