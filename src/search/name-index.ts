import type Database from 'better-sqlite3';
import { ADDON_LOADED, addonLoaded, startWorker } from '../worker-entry.js';
import { SEARCH_KINDS } from './search-kinds.js';

/**
 * Ends every folded name in a kind's text. Queries never contain it (SearchIndex.search matches nothing for
 * them), so a match never spans two names.
 */
export const NAME_END = '\u0000';

/** Rows read per statement while building. */
const CHUNK = 4000;

/** Positions are kept modulo this (a 4-bit mask per posting): enough to drop most trigrams that are not adjacent. */
const POSITION_CLASSES = 4;
const ALL_POSITIONS = (1 << POSITION_CLASSES) - 1;

/**
 * Posting lists a substring search intersects besides the one it walks. Two of them leave few candidates whose
 * bytes do not match; measured on 5,000 unseen queries over 200,000 items, all lists took 161 µs per query over
 * the nine kinds, two 66 µs, with the same results.
 */
const FILTER_LISTS = 2;

/** Three bytes of UTF-8 as one small integer. */
const trigramAt = (text: Uint8Array, at: number): number => (text[at]! << 16) | (text[at + 1]! << 8) | text[at + 2]!;

/** The position mask of a trigram seen `shift` units into the query, moved to the positions where the query starts. */
const alignMask = (mask: number, shift: number): number => {
  const by = shift % POSITION_CLASSES;
  return ((mask >>> by) | (mask << (POSITION_CLASSES - by))) & ALL_POSITIONS;
};

/**
 * The folded names of one kind's items, with trigram postings and the names in sorted order. Everything is
 * UTF-8 bytes in typed arrays, outside the JavaScript heap (which V8 would otherwise let grow to a multiple of
 * it); comparing UTF-8 bytes orders names by code point, as SQLite's BINARY collation does, and a byte match
 * of a UTF-8 query is a character match.
 */
interface KindNames {
  /** Sidecar item id of the kind's first item; ids are consecutive within a kind. */
  first: number;
  /** Every item's distinct folded names in UTF-8, each followed by a NAME_END byte, items in id order. */
  text: Uint8Array;
  /** Item i's names are text[starts[i], starts[i + 1]). */
  starts: Uint32Array;
  /** Trigram (three bytes) → index of its posting list. */
  lists: Map<number, number>;
  /**
   * Posting list k is bytes[listStarts[k], listStarts[k + 1]): per item that has the trigram, in ascending item
   * order, one LEB128 number `gap * 16 + mask`: `gap` items skipped since the previous one, `mask` the positions
   * (within the item's text, modulo 4) where the trigram occurs.
   */
  listStarts: Uint32Array;
  bytes: Uint8Array;
  /**
   * Every (name, item) pair by (name, item id), as SQLite's BINARY order, as the name's byte offset in text (its
   * item is the one whose text holds that offset: itemAt).
   */
  sortedNames: Uint32Array;
}

/** Reads one posting list in order. */
class Postings {
  private at: number;
  /** The current item number; -1 before the first, Infinity after the last. */
  item = -1;
  /** Position mask of the current item. */
  mask = 0;
  /** Length of the encoded list in bytes: orders lists by how many items they hold, roughly. */
  readonly size: number;

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly end: number,
    /** Where the trigram starts in the query. */
    readonly shift: number,
  ) {
    this.at = start;
    this.size = end - start;
  }

  /** Moves to the next item (Infinity past the end). */
  next(): number {
    if (this.at >= this.end) return (this.item = Infinity);
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = this.bytes[this.at++]!;
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte >= 0x80);
    this.mask = value % 16;
    return (this.item = this.item + 1 + Math.floor(value / 16));
  }

  /** Moves to the first item >= `target`. */
  seek(target: number): number {
    while (this.item < target) this.next();
    return this.item;
  }
}

/**
 * The folded names of one search sidecar in memory: prefix matches by binary search over the sorted names and
 * substring matches by trigram postings (with positions modulo 4), verified against the names. It answers
 * exactly what the sidecar's `name_keys` and trigram tables answer, in the same order, without a statement
 * per kind. `bytes` estimates its memory.
 */
export class NameIndex {
  private constructor(
    private readonly kinds: readonly (KindNames | null)[],
    readonly bytes: number,
  ) {}

  /**
   * Reads the names of the finished sidecar `file` in a worker thread (its transient memory and CPU stay off
   * the main thread and are released when it ends) and answers them, or null when `stop()` turned true
   * meanwhile. Rejects when the worker fails.
   */
  static load(file: string, stop: () => boolean): Promise<NameIndex | null> {
    return new Promise((resolve, reject) => {
      const kinds: (KindNames | null)[] = SEARCH_KINDS.map(() => null);
      const worker = startWorker(import.meta.url, 'name-index-worker', { file } satisfies NameWorkerData, { maxYoungGenerationSizeMb: 8 });
      const loaded = addonLoaded(worker);
      let settled = false;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearInterval(watch);
        void loaded.then(() => worker.terminate());
        outcome();
      };
      // a closed sidecar no longer wants its names: stop the worker
      const watch = setInterval(() => {
        if (stop()) settle(() => resolve(null));
      }, 100);
      worker.on('message', (message: NameWorkerMessage) => {
        if (message.kind === 'addon-loaded') return;
        if (message.kind === 'names') kinds[message.rank] = fromTransfer(message);
        else if (message.kind === 'error') settle(() => reject(new Error(message.message)));
        else settle(() => resolve(stop() ? null : NameIndex.of(kinds)));
      });
      worker.on('error', (err) => settle(() => reject(err)));
      worker.on('exit', (code) => settle(() => reject(new Error(`the names worker exited with code ${code}`))));
    });
  }

  /**
   * Reads the names of an open sidecar on the calling thread, synchronously: for small sidecars, whose names take
   * less time to read than a thread takes to start (a thread also costs its own heap, and the C allocator keeps
   * part of what each one used).
   */
  static read(db: Database.Database): NameIndex {
    return NameIndex.of(SEARCH_KINDS.map((_, rank) => buildKindNames(db, rank)));
  }

  private static of(kinds: readonly (KindNames | null)[]): NameIndex {
    let bytes = 0;
    for (const kind of kinds) {
      if (kind === null) continue;
      bytes += kind.text.byteLength + kind.starts.byteLength + kind.listStarts.byteLength + kind.bytes.byteLength + kind.sortedNames.byteLength;
      bytes += kind.lists.size * 16; // a Map entry of two small integers, roughly
    }
    return new NameIndex(kinds, bytes);
  }

  /**
   * Items of kind `rank` with a name equal to or starting with `query` (a folded query in UTF-8), by (name,
   * item id), each once: at most `limit` sidecar item ids.
   */
  prefix(rank: number, query: Uint8Array, limit: number): number[] {
    const kind = this.kinds[rank];
    if (kind === null || kind === undefined || limit <= 0) return [];
    const { text, starts, sortedNames } = kind;
    // the first name >= query
    let low = 0;
    let high = sortedNames.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareNameTo(text, sortedNames[middle]!, query) < 0) low = middle + 1;
      else high = middle;
    }
    const chosen = new Set<number>();
    for (let i = low; i < sortedNames.length && chosen.size < limit; i++) {
      if (!bytesAt(text, sortedNames[i]!, query)) break;
      chosen.add(kind.first + itemAt(starts, sortedNames[i]!));
    }
    return [...chosen];
  }

  /**
   * The first `limit` items of kind `rank` (by item id) with a name containing `query` (a folded query in
   * UTF-8, at least three bytes).
   */
  substring(rank: number, query: Uint8Array, limit: number): number[] {
    const kind = this.kinds[rank];
    if (kind === null || kind === undefined || limit <= 0 || query.length < 3) return [];
    const seen = new Set<number>();
    const lists: Postings[] = [];
    for (let at = 0; at + 3 <= query.length; at++) {
      const trigram = trigramAt(query, at);
      if (seen.has(trigram)) continue;
      seen.add(trigram);
      const list = kind.lists.get(trigram);
      if (list === undefined) return [];
      lists.push(new Postings(kind.bytes, kind.listStarts[list]!, kind.listStarts[list + 1]!, at));
    }
    // Walk the shortest list and filter with the next FILTER_LISTS shortest, read only as far as the walk goes;
    // the bytes of every candidate are compared anyway, so the longer lists would only add reading.
    lists.sort((a, b) => a.size - b.size);
    const [walk, ...longer] = lists as [Postings, ...Postings[]];
    const filters = longer.slice(0, FILTER_LISTS);
    const found: number[] = [];
    const first = query[0]!;
    const { text, starts } = kind;
    candidates: for (let item = walk.next(); item !== Infinity && found.length < limit; item = walk.next()) {
      // the positions where the query could start, after each trigram's own positions
      let starting = alignMask(walk.mask, walk.shift);
      for (const filter of filters) {
        const at = filter.seek(item);
        if (at === Infinity) break candidates;
        if (at !== item) continue candidates;
        starting &= alignMask(filter.mask, filter.shift);
        if (starting === 0) continue candidates;
      }
      const end = starts[item + 1]! - query.length;
      for (let at = starts[item]!; at <= end; at++) {
        if (text[at] === first && bytesAt(text, at, query)) {
          found.push(kind.first + item);
          break;
        }
      }
    }
    return found;
  }
}

/** Compares the name at `offset` of `text` (ended by a NAME_END byte) with `query`, byte by byte. */
function compareNameTo(text: Uint8Array, offset: number, query: Uint8Array): number {
  for (let i = 0; i < query.length; i++) {
    const byte = text[offset + i]!;
    if (byte === 0) return -1; // the name ended: a proper prefix sorts first
    if (byte !== query[i]) return byte - query[i]!;
  }
  return text[offset + query.length] === 0 ? 0 : 1;
}

/**
 * The item whose names hold byte `offset` of the text: the last i with starts[i] <= offset (items without names
 * have starts[i] === starts[i + 1] and hold no offset).
 */
function itemAt(starts: Uint32Array, offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Whether `text` holds the bytes of `query` at `offset`. */
function bytesAt(text: Uint8Array, offset: number, query: Uint8Array): boolean {
  if (offset + query.length > text.length) return false;
  for (let i = 0; i < query.length; i++) if (text[offset + i] !== query[i]) return false;
  return true;
}

const varintLength = (value: number): number => (value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5);

/**
 * Calls `visit(trigram, mask)` once per distinct trigram of one item's text (names ended by NAME_END), with
 * the positions modulo 4 where it occurs; trigrams across a NAME_END are skipped. `masks` is scratch space.
 */
function eachTrigram(text: Uint8Array, start: number, end: number, masks: Map<number, number>, visit: (trigram: number, mask: number) => void): void {
  masks.clear();
  for (let at = start; at + 3 <= end; at++) {
    if (text[at + 2] === 0) {
      at += 2; // the next name starts after the NAME_END
      continue;
    }
    if (text[at + 1] === 0) {
      at += 1;
      continue;
    }
    const trigram = trigramAt(text, at);
    masks.set(trigram, (masks.get(trigram) ?? 0) | (1 << ((at - start) % POSITION_CLASSES)));
  }
  for (const [trigram, mask] of masks) visit(trigram, mask);
}

/**
 * Builds one kind's names (in the names worker) in three parts that hold no per-posting JS objects: the text
 * (read from the sidecar), the postings (counted, then filled into typed arrays and encoded), the sorted names
 * (read in order from `name_keys`).
 */
export function buildKindNames(db: Database.Database, rank: number): KindNames | null {
  const kind = SEARCH_KINDS[rank]!;
  const range = db.prepare('SELECT min(id) AS first, max(id) AS last FROM items WHERE kind = ?').get(kind) as { first: number | null; last: number | null };
  if (range.first === null || range.last === null) return null;
  const first = range.first;
  const count = range.last - first + 1;

  // 1. The text: each item's distinct folded names, each ended by NAME_END.
  const read = db.prepare(`SELECT id, fold_en, fold_de, fold_fr FROM items WHERE id >= ? AND id <= ? ORDER BY id LIMIT ${CHUNK}`).raw();
  const parts: string[] = [];
  const starts = new Uint32Array(count + 1);
  let offset = 0;
  let next = first;
  while (next <= range.last) {
    const rows = read.all(next, range.last) as [number, string | null, string | null, string | null][];
    if (rows.length === 0) break;
    for (const [id, ...folds] of rows) {
      for (let item = next - first; item <= id - first; item++) starts[item] = offset; // (ids have no gaps)
      for (const fold of new Set(folds)) {
        if (fold === null || fold === '') continue;
        parts.push(fold, NAME_END);
        offset += Buffer.byteLength(fold) + 1;
      }
      next = id + 1;
    }
  }
  for (let item = next - first; item <= count; item++) starts[item] = offset;
  const text = new Uint8Array(offset);
  Buffer.from(text.buffer, 0, offset).write(parts.join(''), 'utf8');
  parts.length = 0;

  // 2. Postings: count the items per trigram, then fill each list in item order and encode it.
  const masks = new Map<number, number>();
  const lists = new Map<number, number>();
  let counts: number[] = [];
  for (let item = 0; item < count; item++) {
    eachTrigram(text, starts[item]!, starts[item + 1]!, masks, (trigram) => {
      const list = lists.get(trigram);
      if (list === undefined) {
        lists.set(trigram, counts.length);
        counts.push(1);
      } else {
        counts[list]! += 1;
      }
    });
  }
  const fillAt = new Uint32Array(counts.length + 1);
  for (let list = 0; list < counts.length; list++) fillAt[list + 1] = fillAt[list]! + counts[list]!;
  const total = fillAt[counts.length]!;
  counts = [];
  const items = new Uint32Array(total);
  const itemMasks = new Uint8Array(total);
  for (let item = 0; item < count; item++) {
    eachTrigram(text, starts[item]!, starts[item + 1]!, masks, (trigram, mask) => {
      const list = lists.get(trigram)!;
      const at = fillAt[list]!++;
      items[at] = item;
      itemMasks[at] = mask;
    });
  }
  // fillAt[k] now ends list k; list k starts where list k - 1 ends
  const listCount = lists.size;
  const listStarts = new Uint32Array(listCount + 1);
  let size = 0;
  for (let list = 0, at = 0; list < listCount; list++) {
    let previous = -1;
    for (; at < fillAt[list]!; at++) {
      size += varintLength((items[at]! - previous - 1) * 16 + itemMasks[at]!);
      previous = items[at]!;
    }
  }
  const bytes = new Uint8Array(size);
  let written = 0;
  for (let list = 0, at = 0; list < listCount; list++) {
    listStarts[list] = written;
    let previous = -1;
    for (; at < fillAt[list]!; at++) {
      let value = (items[at]! - previous - 1) * 16 + itemMasks[at]!;
      previous = items[at]!;
      while (value >= 0x80) {
        bytes[written++] = (value % 0x80) | 0x80;
        value = Math.floor(value / 0x80);
      }
      bytes[written++] = value;
    }
  }
  listStarts[listCount] = written;

  // 3. The sorted names come from the sidecar's (kind_rank, fold, item) index: SQLite's own order.
  const names = (db.prepare('SELECT count(*) AS n FROM name_keys WHERE kind_rank = ?').get(rank) as { n: number }).n;
  const sortedNames = new Uint32Array(names);
  const keys = db.prepare('SELECT fold, item FROM name_keys WHERE kind_rank = ? ORDER BY fold, item').raw();
  let filled = 0;
  for (const [fold, id] of keys.iterate(rank) as IterableIterator<[string, number]>) {
    const item = id - first;
    if (filled >= names || item < 0 || item >= count) continue;
    const key = Buffer.from(fold);
    let name = starts[item]!;
    while (name < starts[item + 1]! && !(bytesAt(text, name, key) && text[name + key.length] === 0)) {
      name = text.indexOf(0, name) + 1;
    }
    if (name >= starts[item + 1]!) continue; // not one of the item's names (cannot happen in a sidecar we built)
    sortedNames[filled++] = name;
  }
  return { first, text, starts, lists, listStarts, bytes, sortedNames: sortedNames.slice(0, filled) };
}

/** What the names worker is given. */
export interface NameWorkerData {
  file: string;
}

/** One kind's names as the worker sends them: typed arrays (transferred), the text as bytes, the trigrams in list order. */
interface KindTransfer {
  kind: 'names';
  rank: number;
  first: number;
  text: Uint8Array;
  trigrams: Uint32Array;
  starts: Uint32Array;
  listStarts: Uint32Array;
  bytes: Uint8Array;
  sortedNames: Uint32Array;
}

/** Messages of the names worker: one per kind that has items, then `done`; or `error`. */
export type NameWorkerMessage = KindTransfer | { kind: 'done' } | { kind: 'error'; message: string } | typeof ADDON_LOADED;

/** A kind's names as a message and the buffers to transfer with it. */
export function toTransfer(rank: number, names: KindNames): { message: KindTransfer; transfer: ArrayBuffer[] } {
  const trigrams = Uint32Array.from(names.lists.keys());
  const message: KindTransfer = {
    kind: 'names', rank, first: names.first, text: names.text, trigrams,
    starts: names.starts, listStarts: names.listStarts, bytes: names.bytes, sortedNames: names.sortedNames,
  };
  const transfer = [names.text, trigrams, names.starts, names.listStarts, names.bytes, names.sortedNames].map((array) => array.buffer as ArrayBuffer);
  return { message, transfer };
}

function fromTransfer(message: KindTransfer): KindNames {
  // lists were numbered in the order the trigrams were first seen, which is the order of the Map's keys
  const lists = new Map<number, number>();
  message.trigrams.forEach((trigram, index) => lists.set(trigram, index));
  return {
    first: message.first, text: message.text, starts: message.starts, lists, listStarts: message.listStarts,
    bytes: message.bytes, sortedNames: message.sortedNames,
  };
}
