import type Database from 'better-sqlite3';
import { RESULT_KEY, SEARCH_KINDS } from './search-kinds.js';
import { SLICE_MS, inSlices } from './slices.js';

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
 * One buffer per thread that bodies are put together in and read out of as text, grown to the largest body so far.
 * A body answered as a string lives in V8's heap and dies young; as a buffer of its own it was external memory,
 * which the collector counts apart: at thousands of searches a second, the buffers of answers already written
 * started a full collection of the main thread's heap about every half second (docs/decisions/0017-search-thread.md).
 */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

function scratchOf(length: number): Buffer {
  if (scratch.length < length) scratch = Buffer.allocUnsafeSlow(2 ** Math.ceil(Math.log2(length)));
  return scratch;
}

/** Writes the SearchResults body from the hits statement's rows, as its JSON text. */
export function encodeHitRows(rows: readonly (readonly [number, Buffer])[]): string {
  const hitsByRank: (Buffer | undefined)[] = [];
  let length = 0;
  for (const part of ENVELOPE) length += part.length;
  for (const [rank, hits] of rows) {
    hitsByRank[rank] = hits;
    length += hits.length;
  }
  const body = scratchOf(length);
  let at = 0;
  for (let rank = 0; rank < SEARCH_KINDS.length; rank++) {
    at += ENVELOPE[rank]!.copy(body, at);
    const hits = hitsByRank[rank];
    if (hits !== undefined) at += hits.copy(body, at);
  }
  ENVELOPE[SEARCH_KINDS.length]!.copy(body, at);
  return body.toString('utf8', 0, length);
}

/** Item ids read per step of a HitTable load (about 1 MB of hits on the bench's tenant). */
const LOAD_IDS = 4096;

/** Between two hits of a kind in a body. */
const COMMA = 0x2c;

/**
 * The hits of a sidecar's items in memory, as the bytes of their JSON, by item id: `encode` answers the body the
 * hits statement and encodeHitRows answer for the same ids, with a copy per hit instead of a B-tree lookup per hit
 * and SQLite's JSON and grouping.
 */
export class HitTable {
  private constructor(
    /** Item id of `starts[0]`. */
    private readonly first: number,
    /** Item `first + i`'s hit is bytes[starts[i], starts[i + 1]) (empty: no such item). */
    private readonly starts: Uint32Array,
    private readonly bytes: Uint8Array,
  ) {}

  /** Memory the table takes, in bytes. */
  get byteLength(): number {
    return this.starts.byteLength + this.bytes.byteLength;
  }

  /**
   * Reads the hits of an open sidecar in slices of about `sliceMs` of work each (`idsPerStep` item ids per step),
   * giving way to other tasks between them; null when `stop()` turned true meanwhile, or when the table would take
   * more than `maxBytes` (known from the hits' lengths, before any hit is read). No statement stays open between
   * steps.
   */
  static async load(db: Database.Database, stop: () => boolean, sliceMs = SLICE_MS, idsPerStep = LOAD_IDS, maxBytes = Number.POSITIVE_INFINITY): Promise<HitTable | null> {
    return (await inSlices(HitTable.steps(db, idsPerStep, maxBytes), stop, sliceMs)) ?? null;
  }

  /** The SearchResults body of the chosen ids of each kind (by rank), in the order chosen, as its JSON text. */
  encode(chosen: readonly (readonly number[])[]): string {
    const { first, starts, bytes } = this;
    const present = (id: number): boolean => id >= first && id - first + 1 < starts.length && starts[id - first + 1]! > starts[id - first]!;
    let length = 0;
    for (const part of ENVELOPE) length += part.length;
    for (const ids of chosen) {
      let hits = 0;
      for (const id of ids) {
        if (!present(id)) continue;
        length += starts[id - first + 1]! - starts[id - first]! + (hits > 0 ? 1 : 0);
        hits += 1;
      }
    }
    const body = scratchOf(length);
    let at = 0;
    for (let rank = 0; rank < SEARCH_KINDS.length; rank++) {
      at += ENVELOPE[rank]!.copy(body, at);
      let hits = 0;
      for (const id of chosen[rank] ?? []) {
        if (!present(id)) continue;
        if (hits++ > 0) body[at++] = COMMA;
        body.set(bytes.subarray(starts[id - first]!, starts[id - first + 1]!), at);
        at += starts[id - first + 1]! - starts[id - first]!;
      }
    }
    ENVELOPE[SEARCH_KINDS.length]!.copy(body, at);
    return body.toString('utf8', 0, length);
  }

  /**
   * The table read `idsPerStep` ids per step: first the hits' lengths (their offsets, and the size of the whole
   * table, null when it is over `maxBytes`), then their bytes, joined by SQLite, into a buffer of that size.
   */
  private static *steps(db: Database.Database, idsPerStep: number, maxBytes: number): Generator<void, HitTable | null> {
    const range = db.prepare('SELECT min(id), max(id) FROM items').raw().get() as [number | null, number | null];
    const [first, last] = range[0] === null || range[1] === null ? [0, -1] : (range as [number, number]);
    const starts = new Uint32Array(last - first + 2);
    const lengths = db.prepare('SELECT id, octet_length(hit) FROM items WHERE id BETWEEN ? AND ? ORDER BY id').raw();
    const joinedHits = db.prepare("SELECT CAST(group_concat(hit, '' ORDER BY id) AS BLOB) FROM items WHERE id BETWEEN ? AND ?").pluck();
    let offset = 0;
    for (let from = first; from <= last; from += idsPerStep) {
      const to = Math.min(last, from + idsPerStep - 1);
      let next = from;
      for (const [id, length] of lengths.all(from, to) as [number, number][]) {
        for (; next <= id; next++) starts[next - first] = offset; // ids without an item hold nothing
        offset += length;
        starts[id - first + 1] = offset;
      }
      for (; next <= to; next++) starts[next - first + 1] = offset;
      yield;
    }
    if (starts.byteLength + offset > maxBytes) return null;
    const bytes = new Uint8Array(offset);
    for (let from = first; from <= last; from += idsPerStep) {
      const to = Math.min(last, from + idsPerStep - 1);
      const chunk = joinedHits.get(from, to) as Buffer | null;
      const at = starts[from - first]!;
      if (chunk !== null) {
        if (at + chunk.length !== starts[to - first + 1]) throw new Error('the hits of the search index changed while they were read');
        bytes.set(chunk, at);
      }
      yield;
    }
    return new HitTable(first, starts, bytes);
  }
}
