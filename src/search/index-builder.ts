import fs from 'node:fs';
import Database from 'better-sqlite3';
import { inSpan } from '../tracing.js';
import { foldText } from './fold.js';
import { columnsOf, hasRowid, hasTable, quoteIdentifier } from './kls-schema.js';
import { NAMES_TABLE, NameIndex } from './name-index.js';
import { stepsWithin, type BuildRoom } from './build-room.js';
import { toApiSearchHit, type SearchHitCheck } from './search-hit.js';
import { SEARCH_KINDS, isSearchKind, type SearchKind } from './search-kinds.js';

/** Version of the sidecar layout; a file of another version is rebuilt. */
export const INDEX_FORMAT = '4';

/** The trigram table of one kind (one per kind, so a kind's first N matches never walk other kinds' postings). */
export const ftsTableOf = (kind: SearchKind): string => `fts_${kind}`;

/**
 * Page cache of the connection that writes a sidecar, in KiB. SQLite's memory is freed when the build ends, but
 * the C allocator keeps most of it in the process: with better-sqlite3's 16 MB cache, a 200,000-item build left
 * the process 57 MB larger, with 2 MiB 29 MB, in the same build time (4.7–4.9 s).
 */
const BUILD_CACHE_KIB = 2048;

/** Rows copied per step; the build yields to the event loop between steps so requests keep flowing. */
const CHUNK = 4000;

const ITEM_COLUMNS = ['kind', 'item_id', 'name_en', 'name_de', 'name_fr', 'description_en', 'description_de', 'description_fr', 'meta'] as const;
const NAME_COLUMNS = ['name_en', 'name_de', 'name_fr'] as const;

const SCHEMA = `
  CREATE TABLE index_info (key TEXT PRIMARY KEY, value TEXT);
  CREATE TABLE staging (kind_rank INTEGER, sort_key TEXT, kind TEXT, item_id TEXT, hit TEXT, fold_en TEXT, fold_de TEXT, fold_fr TEXT);
  CREATE TABLE items (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, hit TEXT NOT NULL, fold_en TEXT, fold_de TEXT, fold_fr TEXT);
  CREATE TABLE name_keys (kind_rank INTEGER NOT NULL, fold TEXT NOT NULL, item INTEGER NOT NULL);
  ${SEARCH_KINDS.map((kind) => `CREATE VIRTUAL TABLE ${ftsTableOf(kind)} USING fts5(fold_en, fold_de, fold_fr, content='', columnsize=0, tokenize='trigram');`).join('\n  ')}
`;

/** What the index is built from and checked against. */
export interface IndexSourceInfo {
  /** Identity of the KLS file (size, mtime, inode), or null when unknown (the file is then never reused). */
  fingerprint: string | null;
  /** The contract's SearchItem check: every hit is checked once here, so search responses need no check. */
  checkHit: SearchHitCheck;
  /**
   * Room on disk the sidecar may take (a bounded store cache), grown as the steps need it; the file never grows past
   * it (SQLite's max_page_count), and a build whose room cannot grow enough fails. Null: no bound.
   */
  room?: BuildRoom | null;
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs one writing step of a build within its room (build-room.ts). */
type Steps = (step: () => void) => void;

/**
 * Builds the search sidecar for one KLS generation at `target`: written to a temporary file beside it, then
 * renamed into place. Items are numbered by (kind, folded name, id) and hold their API hit as checked JSON;
 * each kind has its own trigram table (substring matches in id order, a query stops after N rows) and
 * `name_keys` holds every folded name by kind (exact and prefix matches are one B-tree range); `names` holds the
 * names as NameIndex keeps them in memory (name-index.ts). A hit that
 * fails the contract's SearchItem check fails the build (a server bug, logged; searches answer 503).
 */
export function buildSearchIndex(kls: Database.Database, target: string, info: IndexSourceInfo): Promise<void> {
  return inSpan('search index build', () => writeSearchIndex(kls, target, info));
}

async function writeSearchIndex(kls: Database.Database, target: string, info: IndexSourceInfo): Promise<void> {
  const temp = `${target}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const db = new Database(temp);
  try {
    // With a room, a step that finds the file full is rolled back and run again with more room: the journal in
    // memory allows that, where none (OFF) would leave the file in an undefined state.
    db.pragma(info.room == null ? 'journal_mode = OFF' : 'journal_mode = MEMORY');
    db.pragma('synchronous = OFF');
    db.pragma(`cache_size = -${BUILD_CACHE_KIB}`);
    const inRoom = stepsWithin(db, info.room ?? null);
    inRoom(db.transaction(() => db.exec(SCHEMA)));
    await copyItems(kls, db, info.checkHit, inRoom);
    inRoom(() =>
      db.exec(`INSERT INTO items (kind, hit, fold_en, fold_de, fold_fr)
        SELECT kind, hit, fold_en, fold_de, fold_fr FROM staging ORDER BY kind_rank, sort_key, item_id`),
    );
    db.exec('DROP TABLE staging');
    await indexItems(db, inRoom);
    // Built after the rows are in: one sort instead of a random B-tree insert per key.
    inRoom(() => db.exec('CREATE INDEX name_keys_order ON name_keys (kind_rank, fold, item)'));
    await storeNames(db, inRoom);
    const count = (db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;
    const meta = db.prepare('INSERT INTO index_info VALUES (?, ?)');
    inRoom(
      db.transaction(() => {
        meta.run('format', INDEX_FORMAT);
        meta.run('fingerprint', info.fingerprint);
        meta.run('contract', info.checkHit.contract);
        meta.run('items', String(count));
      }),
    );
    db.close();
    fs.renameSync(temp, target);
  } catch (err) {
    if (db.open) db.close();
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Builds the in-memory names once, here, and stores them in the `names` table, from which every open of the sidecar
 * reads them: for 200,000 items, reading took 40–70 ms where building took 3.5–4.0 s, so that a search thread that
 * ended idle has them back within a second of its next search (docs/decisions/0017-search-thread.md).
 */
async function storeNames(db: Database.Database, inRoom: Steps): Promise<void> {
  const names = await NameIndex.build(db);
  inRoom(db.transaction(() => db.exec(NAMES_TABLE)));
  const insert = db.prepare('INSERT INTO names (kind_rank, part, data) VALUES (?, ?, ?)');
  for (const row of names.rows()) {
    inRoom(() => insert.run(...row));
    await nextTick();
  }
}

/** Copies the nine kinds' rows of `search_items` into `staging` as hit JSON and folded names; other kinds are skipped. */
async function copyItems(kls: Database.Database, db: Database.Database, checkHit: SearchHitCheck, inRoom: Steps): Promise<void> {
  if (!hasTable(kls, 'search_items')) return;
  const present = new Set(columnsOf(kls, 'search_items'));
  if (!present.has('kind') || !present.has('item_id')) return;
  const select = ITEM_COLUMNS.map((column) => (present.has(column) ? quoteIdentifier(column) : `NULL AS ${column}`)).join(', ');
  const insert = db.prepare('INSERT INTO staging VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const stage = db.transaction((rows: Record<string, unknown>[]) => {
    for (const row of rows) {
      if (!isSearchKind(row['kind']) || row['item_id'] === null || row['item_id'] === undefined) continue;
      const text = (column: string): string | null => (typeof row[column] === 'string' && row[column] !== '' ? (row[column] as string) : null);
      const folds = NAME_COLUMNS.map((column) => (text(column) === null ? null : foldText(text(column) as string)));
      const itemId = String(row['item_id']);
      const sortKey = folds.find((fold) => fold !== null) ?? foldText(itemId);
      const hit = toApiSearchHit({
        kind: row['kind'], item_id: itemId, name_en: text('name_en'), name_de: text('name_de'), name_fr: text('name_fr'),
        description_en: text('description_en'), description_de: text('description_de'), description_fr: text('description_fr'), meta: text('meta'),
      });
      const problem = checkHit.check(hit);
      if (problem !== null) throw new Error(`search item ${row['kind']} "${itemId}" breaks the contract's SearchItem: ${problem}`);
      insert.run(SEARCH_KINDS.indexOf(row['kind']), sortKey, row['kind'], itemId, JSON.stringify(hit), ...folds);
    }
  });
  if (!hasRowid(kls, 'search_items')) {
    const all = kls.prepare(`SELECT ${select} FROM search_items`).all() as Record<string, unknown>[];
    inRoom(() => stage(all));
    return;
  }
  // Keyset pages on the rowid: the leased connection stays free for other requests between pages.
  const page = kls.prepare(`SELECT rowid AS row_number, ${select} FROM search_items WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`);
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = page.all(after) as Record<string, unknown>[];
    if (rows.length === 0) return;
    inRoom(() => stage(rows));
    after = rows[rows.length - 1]!['row_number'] as number;
    await nextTick();
  }
}

/** Fills each kind's trigram table and the folded-name keys from `items`. */
async function indexItems(db: Database.Database, inRoom: Steps): Promise<void> {
  const read = db.prepare(`SELECT id, kind, fold_en, fold_de, fold_fr FROM items WHERE id > ? ORDER BY id LIMIT ${CHUNK}`);
  const fts = new Map(SEARCH_KINDS.map((kind) => [kind, db.prepare(`INSERT INTO ${ftsTableOf(kind)} (rowid, fold_en, fold_de, fold_fr) VALUES (?, ?, ?, ?)`)]));
  const key = db.prepare('INSERT INTO name_keys (kind_rank, fold, item) VALUES (?, ?, ?)');
  type Row = { id: number; kind: SearchKind; fold_en: string | null; fold_de: string | null; fold_fr: string | null };
  const fill = db.transaction((rows: Row[]) => {
    for (const row of rows) {
      fts.get(row.kind)?.run(row.id, row.fold_en, row.fold_de, row.fold_fr);
      for (const fold of new Set([row.fold_en, row.fold_de, row.fold_fr])) {
        if (fold !== null && fold !== '') key.run(SEARCH_KINDS.indexOf(row.kind), fold, row.id);
      }
    }
  });
  let after = 0;
  for (;;) {
    const rows = read.all(after) as Row[];
    if (rows.length === 0) break;
    inRoom(() => fill(rows));
    after = rows[rows.length - 1]!.id;
    await nextTick();
  }
  for (const kind of SEARCH_KINDS) {
    inRoom(() => db.exec(`INSERT INTO ${ftsTableOf(kind)}(${ftsTableOf(kind)}) VALUES ('optimize')`));
    await nextTick();
  }
}
