import { csvRecord } from './csv.js';

/**
 * Characters of CSV per chunk, about as many bytes for mostly ASCII data (~1,300 rows, a few ms of encoding): what
 * a reader encodes in one step, and what the stream holds before it asks for more.
 */
export const CHUNK_CHARS = 256 * 1024;

/** A chunk of CSV records and whether the rows ran out with it. */
export interface EncodedChunk {
  /** UTF-8 in an ArrayBuffer of its own, so that a reader thread can transfer it; empty when no row was left. */
  bytes: Uint8Array<ArrayBuffer>;
  records: number;
  done: boolean;
}

const utf8 = new TextEncoder();

/** Encodes records from `rows` (a better-sqlite3 raw iterator) until about CHUNK_CHARS characters or the end. */
export function encodeChunk(rows: Iterator<unknown[]>): EncodedChunk {
  let text = '';
  let records = 0;
  while (text.length < CHUNK_CHARS) {
    const next = rows.next();
    if (next.done === true) return { bytes: utf8.encode(text), records, done: true };
    text += csvRecord(next.value);
    records += 1;
  }
  return { bytes: utf8.encode(text), records, done: false };
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
