import { csvRecord } from './csv.js';

/** About this many bytes of CSV are encoded per chunk (~1,300 rows, ~5 ms of encoding). */
export const CHUNK_BYTES = 256 * 1024;
/** Room for the record that crosses CHUNK_BYTES; a longer record gets a buffer of its own. */
const SLACK_BYTES = 64 * 1024;
/** Bytes a chunk buffer needs: CHUNK_BYTES plus room for the record that crosses it. */
export const CHUNK_BUFFER_BYTES = CHUNK_BYTES + SLACK_BYTES;

/** What encoding into a chunk buffer made: `used` bytes, then `long` (a record sent on its own) when there is one. */
export interface EncodedRows {
  used: number;
  done: boolean;
  long: Buffer | null;
  records: number;
}

/** Where an export's CSV comes from: records encoded into a CHUNK_BUFFER_BYTES buffer, a chunk at a time. */
export interface ChunkEncoder {
  /** Like encodeRowsInto; a call may also answer nothing (`used` 0, not `done`) after a bounded search. */
  encodeInto(target: Buffer): EncodedRows;
  /** Stops reading (closes its statements' iterators). */
  close(): void;
}

/**
 * Encodes rows into `target` (CHUNK_BUFFER_BYTES long) until about CHUNK_BYTES are used. A record longer than
 * the room left ends the chunk and comes back as `long` (its own buffer, to be sent right after `used` bytes).
 * `done` when the rows ran out; `records` counts the records encoded, `long` included.
 */
export function encodeRowsInto(rows: Iterator<unknown[]>, target: Buffer): EncodedRows {
  let used = 0;
  let records = 0;
  while (used < CHUNK_BYTES) {
    const next = rows.next();
    if (next.done === true) return { used, done: true, long: null, records };
    const record = csvRecord(next.value);
    records += 1;
    // a UTF-16 code unit never takes more than 3 UTF-8 bytes
    if (record.length * 3 > target.length - used) return { used, done: false, long: Buffer.from(record, 'utf8'), records };
    used += target.write(record, used, 'utf8');
  }
  return { used, done: false, long: null, records };
}

/** Records encoded value by value from rows (a better-sqlite3 raw iterator). */
export function rowEncoder(rows: Iterator<unknown[]>): ChunkEncoder {
  return {
    encodeInto: (target) => encodeRowsInto(rows, target),
    close: () => void rows.return?.(),
  };
}

/** The first `limit` rows of `rows`; closing it closes `rows`. */
export function firstRows(rows: Iterator<unknown[]>, limit: number): Iterator<unknown[]> {
  let left = limit;
  return {
    next(): IteratorResult<unknown[]> {
      if (left <= 0) return { done: true, value: undefined };
      left -= 1;
      return rows.next();
    },
    return(): IteratorResult<unknown[]> {
      rows.return?.();
      return { done: true, value: undefined };
    },
  };
}
