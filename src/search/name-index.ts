import type Database from 'better-sqlite3';
import { SEARCH_KINDS } from './search-kinds.js';
import { SLICE_MS, inSlices } from './slices.js';

/**
 * Ends every folded name in a kind's text. Queries never contain it (SearchIndex.search matches nothing for
 * them), so a match never spans two names.
 */
export const NAME_END = '\u0000';

/** Rows read per statement while building. */
const CHUNK = 500;

/** Items per step of a build's loops over the items (a few milliseconds of work). */
const SLICE_ITEMS = 500;

/**
 * The parts of one kind's names as the sidecar's `names` table holds them (column `part`, this order): the index
 * builder writes them once (NameIndex.build, rows), every open reads them (NameIndex.load, read). The typed arrays
 * are stored in the machine's byte order: a sidecar is a cache, built and read where the server runs.
 */
const PARTS = ['first', 'text', 'starts', 'trigrams', 'listStarts', 'bytes', 'sortedNames'] as const;

/** Bytes per row of the `names` table: one step of a load reads one row. */
const ROW_BYTES = 1 << 20;

/** The table of the sidecar that holds its names as NameIndex reads them (index-builder.ts creates it). */
export const NAMES_TABLE = 'CREATE TABLE names (kind_rank INTEGER NOT NULL, part INTEGER NOT NULL, data BLOB NOT NULL)';

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
   * Builds the names from the items of a sidecar being written, in slices of about `sliceMs` of work each that give
   * way to other tasks (index-builder.ts, which then stores them with `rows`).
   */
  static async build(db: Database.Database, sliceMs = SLICE_MS): Promise<NameIndex> {
    return (await inSlices(buildSteps(db), () => false, sliceMs))!;
  }

  /**
   * Reads the names stored in an open sidecar on the calling thread in slices of about `sliceMs` of work each (a row
   * of at most ROW_BYTES per step), giving way to other tasks (requests) between them, and answers them, or null
   * when `stop()` turned true meanwhile. A worker thread would keep this thread free but costs an isolate of its
   * own, and the C allocator keeps what it used in the thread's arena around the names it sent back
   * (docs/decisions/0016-memory.md). Between slices the connection is free: no statement is left open across them.
   */
  static load(db: Database.Database, stop: () => boolean, sliceMs = SLICE_MS): Promise<NameIndex | null> {
    return inSlices(readSteps(db), stop, sliceMs);
  }

  /** The bytes of the names stored in an open sidecar: about what they take once read. */
  static storedBytes(db: Database.Database): number {
    return db.prepare('SELECT total(length(data)) FROM names').pluck().get() as number;
  }

  /** Reads the names stored in an open sidecar on the calling thread, at once: for small sidecars (tests, few items). */
  static read(db: Database.Database): NameIndex {
    const steps = readSteps(db);
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
    }
  }

  /** The rows of the sidecar's `names` table that hold these names: [kind rank, part, bytes of at most `rowBytes`]. */
  *rows(rowBytes = ROW_BYTES): Generator<[number, number, Buffer]> {
    for (const [rank, kind] of this.kinds.entries()) {
      if (kind === null) continue;
      const trigrams = new Uint32Array(kind.lists.size);
      for (const [trigram, list] of kind.lists) trigrams[list] = trigram;
      const parts = [Uint32Array.of(kind.first), kind.text, kind.starts, trigrams, kind.listStarts, kind.bytes, kind.sortedNames];
      for (const [part, array] of parts.entries()) {
        const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
        // an empty part still has its row: every part of a kind that has items is there
        for (let at = 0; at === 0 || at < bytes.length; at += rowBytes) yield [rank, part, bytes.subarray(at, at + rowBytes)];
      }
    }
  }

  static of(kinds: readonly (KindNames | null)[]): NameIndex {
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

/** Every kind's names from the items of a sidecar, kind by kind. */
function* buildSteps(db: Database.Database): Generator<void, NameIndex> {
  const kinds: (KindNames | null)[] = [];
  for (let rank = 0; rank < SEARCH_KINDS.length; rank++) kinds.push(yield* kindNamesSteps(db, rank));
  return NameIndex.of(kinds);
}

/** One part's rows joined into one array of its own (offset 0: any typed array fits on it). */
function joined(chunks: readonly Buffer[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** A kind's names from its parts' rows. */
function kindFromParts(parts: readonly Buffer[][]): KindNames {
  const bytesOf = (part: (typeof PARTS)[number]): Uint8Array => joined(parts[PARTS.indexOf(part)] ?? []);
  const wordsOf = (part: (typeof PARTS)[number]): Uint32Array => {
    const bytes = bytesOf(part);
    return new Uint32Array(bytes.buffer, 0, bytes.byteLength / 4);
  };
  const trigrams = wordsOf('trigrams');
  const lists = new Map<number, number>();
  for (let list = 0; list < trigrams.length; list++) lists.set(trigrams[list]!, list);
  return { first: wordsOf('first')[0]!, text: bytesOf('text'), starts: wordsOf('starts'), lists, listStarts: wordsOf('listStarts'), bytes: bytesOf('bytes'), sortedNames: wordsOf('sortedNames') };
}

/**
 * The names stored in a sidecar's `names` table, a row per step (rows in the order `rows` wrote them, kind by kind);
 * each kind is put together as soon as its last row is in, so that only one kind's rows are held beside the arrays.
 */
function* readSteps(db: Database.Database): Generator<void, NameIndex> {
  const next = db.prepare('SELECT rowid, kind_rank, part, data FROM names WHERE rowid > ? ORDER BY rowid LIMIT 1').raw();
  const kinds: (KindNames | null)[] = SEARCH_KINDS.map(() => null);
  let rank = -1;
  let parts: Buffer[][] = [];
  for (let after = 0; ; ) {
    const row = next.get(after) as [number, number, number, Buffer] | undefined;
    if (rank >= 0 && (row === undefined || row[1] !== rank)) {
      kinds[rank] = kindFromParts(parts);
      parts = [];
    }
    if (row === undefined) break;
    [after, rank] = row;
    (parts[row[2]] ??= []).push(row[3]);
    yield;
  }
  return NameIndex.of(kinds);
}

/**
 * Builds one kind's names in steps of at most SLICE_ITEMS items or CHUNK rows (the generator yields between them),
 * in three parts that allocate nothing besides the arrays they answer (no per-posting JS objects, no scratch typed
 * arrays): the text (read from the sidecar), the postings (sized in one pass, written in a second), the sorted
 * names (read in order from `name_keys`, a page at a time).
 */
function* kindNamesSteps(db: Database.Database, rank: number): Generator<void, KindNames | null> {
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
    yield;
  }
  for (let item = next - first; item <= count; item++) starts[item] = offset;
  const text = new Uint8Array(offset);
  Buffer.from(text.buffer, 0, offset).write(parts.join(''), 'utf8');
  parts.length = 0;
  yield;

  // 2. Postings: the encoded size of each list (numbered as their trigrams are first seen), then each list
  // written in item order at its own cursor. Per list one LEB128 number per item: `gap * 16 + mask`.
  const masks = new Map<number, number>();
  const lists = new Map<number, number>();
  const sizes: number[] = [];
  const previous: number[] = [];
  for (let item = 0; item < count; item++) {
    eachTrigram(text, starts[item]!, starts[item + 1]!, masks, (trigram, mask) => {
      let list = lists.get(trigram);
      if (list === undefined) {
        list = sizes.length;
        lists.set(trigram, list);
        sizes.push(0);
        previous.push(-1);
      }
      sizes[list]! += varintLength((item - previous[list]! - 1) * 16 + mask);
      previous[list] = item;
    });
    if (item % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
  }
  const listCount = sizes.length;
  const listStarts = new Uint32Array(listCount + 1);
  for (let list = 0; list < listCount; list++) listStarts[list + 1] = listStarts[list]! + sizes[list]!;
  const bytes = new Uint8Array(listStarts[listCount]!);
  const cursors = Array.from(listStarts.subarray(0, listCount));
  previous.fill(-1);
  for (let item = 0; item < count; item++) {
    eachTrigram(text, starts[item]!, starts[item + 1]!, masks, (trigram, mask) => {
      const list = lists.get(trigram)!;
      let value = (item - previous[list]! - 1) * 16 + mask;
      previous[list] = item;
      let at = cursors[list]!;
      while (value >= 0x80) {
        bytes[at++] = (value % 0x80) | 0x80;
        value = Math.floor(value / 0x80);
      }
      bytes[at++] = value;
      cursors[list] = at;
    });
    if (item % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
  }

  // 3. The sorted names come from the sidecar's (kind_rank, fold, item) index: SQLite's own order, a page at a time
  // (keyset on the index), so that no statement stays open between steps.
  const names = (db.prepare('SELECT count(*) AS n FROM name_keys WHERE kind_rank = ?').get(rank) as { n: number }).n;
  let sortedNames = new Uint32Array(names);
  const firstPage = db.prepare(`SELECT fold, item FROM name_keys WHERE kind_rank = ? ORDER BY fold, item LIMIT ${CHUNK}`).raw();
  const nextPage = db.prepare(`SELECT fold, item FROM name_keys WHERE kind_rank = ? AND (fold, item) > (?, ?) ORDER BY fold, item LIMIT ${CHUNK}`).raw();
  let filled = 0;
  for (let page = firstPage.all(rank) as [string, number][]; page.length > 0; ) {
    for (const [fold, id] of page) {
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
    const [lastFold, lastItem] = page[page.length - 1]!;
    yield;
    page = nextPage.all(rank, lastFold, lastItem) as [string, number][];
  }
  if (filled < names) sortedNames = sortedNames.slice(0, filled);
  return { first, text, starts, lists, listStarts, bytes, sortedNames };
}
