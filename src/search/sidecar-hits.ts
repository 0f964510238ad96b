import type Database from 'better-sqlite3';
import { RESULT_KEY, SEARCH_KINDS } from './search-kinds.js';

/**
 * Page cache of an open sidecar connection, in KiB (better-sqlite3's default is 16 MB per connection). A search
 * touches a few dozen pages (B-tree ranges, trigram postings, the hits by id); pages missed here come from the
 * operating system's file cache. Each open sidecar has one such connection: the total stays within
 * TENANT_HANDLES_MAX × this.
 */
export const SIDECAR_CACHE_KIB = 1024;

/**
 * Given the chosen ids of each kind as a JSON array of nine arrays, the hits of each kind that has any, in the
 * order chosen, joined into one JSON text by SQLite and read as bytes: one value per kind instead of a string per
 * hit decoded from UTF-8 and encoded again. Rows are `[rank, bytes]`, by rank.
 */
const HITS_SQL =
  'SELECT k.key, CAST(group_concat(i.hit, \',\' ORDER BY j.key) AS BLOB) FROM json_each(?) AS k, json_each(k.value) AS j JOIN items AS i ON i.id = j.value GROUP BY k.key';

/** The hits statement on a sidecar connection (raw rows). */
export const prepareHits = (db: Database.Database): Database.Statement => db.prepare(HITS_SQL).raw();

/** The envelope around the nine arrays, in the contract's key order: `{"probes":[`, `],"hypotheses":[`, …, `]}`. */
const ENVELOPE = [...SEARCH_KINDS.map((kind, rank) => Buffer.from(`${rank === 0 ? '{' : '],'}"${RESULT_KEY[kind]}":[`)), Buffer.from(']}')];

/**
 * Writes the SearchResults body from the hits statement's rows into one buffer of its own (not a slice of Node's
 * shared 8 KiB pool, which a result kept in the result cache would keep alive).
 */
export function encodeHitRows(rows: readonly (readonly [number, Buffer])[]): Buffer {
  const hitsByRank: (Buffer | undefined)[] = [];
  let length = 0;
  for (const part of ENVELOPE) length += part.length;
  for (const [rank, hits] of rows) {
    hitsByRank[rank] = hits;
    length += hits.length;
  }
  const body = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (let rank = 0; rank < SEARCH_KINDS.length; rank++) {
    at += ENVELOPE[rank]!.copy(body, at);
    const hits = hitsByRank[rank];
    if (hits !== undefined) at += hits.copy(body, at);
  }
  ENVELOPE[SEARCH_KINDS.length]!.copy(body, at);
  return body;
}
