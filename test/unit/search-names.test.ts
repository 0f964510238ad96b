import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { pino } from 'pino';
import { buildSearchIndex } from '../../src/search/index-builder.js';
import type { SearchHitCheck } from '../../src/search/search-hit.js';
import { NameIndex } from '../../src/search/name-index.js';
import { SearchIndex } from '../../src/search/search-index.js';
import type { EncodedResults } from '../../src/ports/tenant-reads.js';
import { SearchIndexes, sidecarPath } from '../../src/search/search-indexes.js';
import { SEARCH_KINDS } from '../../src/search/search-kinds.js';
import { SearchThread } from '../../src/search/search-thread.js';
import { HitTable, encodeHitRows, prepareHits } from '../../src/search/sidecar-hits.js';
import { contractSearchHitCheck } from '../helpers/contract.js';
import { KLS_COLUMNS, buildKls, searchRow } from '../helpers/kls-builder.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** Ids of the threads of this process now (Linux). */
const threadIds = (): Set<string> => new Set(fs.readdirSync('/proc/self/task'));
/**
 * Threads of this process now that were not among `before`: threads that an earlier test started, and that end
 * meanwhile, do not count.
 */
const threadsStartedSince = (before: Set<string>): string[] => [...threadIds()].filter((id) => !before.has(id));

/** Names that stress folding, byte order and trigram edges: accents, ligatures, astral and CJK letters, NUL, short names. */
const ODD_NAMES = [
  'Coût total', 'Kostengewicht', 'Straße', 'Œsophagite', 'Zürcher Spital', 'ab', 'a', 'Ab', 'éé', 'zz top',
  'emoji 😀 report', '😀😀😀', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 name', '東京 病院', 'naïve café', 'NUL\u0000inside', 'tab\tand  spaces', '"quoted" name',
  'bers', 'über sicht', 'Übersicht', 'ersber', 'berbers', 'tions stations', 'Station', 'ｆｕｌｌ width',
  '\u0301', // folds to nothing: an item without names
];

/** Items of every kind: generated patterns (many share trigrams, so limits and long posting lists matter) and the odd names. */
function rows(): Record<string, unknown>[] {
  const words = ['Fallkosten', 'Station', 'Versicherer', 'Austrittsberichte', 'Übersicht', 'Kosten', 'Coûts', 'séjour', 'Prognose', 'ward'];
  const out: Record<string, unknown>[] = [];
  let seed = 11;
  const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let i = 0; i < 2400; i++) {
    const kind = SEARCH_KINDS[i % SEARCH_KINDS.length]!;
    const en = `${words[next(words.length)]} ${words[next(words.length)]} ${next(500)}`;
    const de = next(4) === 0 ? null : `${words[next(words.length)]} nach ${words[next(words.length)]} ${next(90)}`;
    const fr = next(3) === 0 ? en : `${words[next(words.length)]} par ${words[next(words.length)]}`;
    out.push(searchRow(kind, `${kind}_${String(i).padStart(5, '0')}`, en, de, fr));
  }
  ODD_NAMES.forEach((name, i) => out.push(searchRow(SEARCH_KINDS[i % 3]!, `odd_${i}`, name, i % 2 === 0 ? null : name.toUpperCase(), null)));
  return out;
}

/** Queries: substrings of the names (every length from 1 to 7), case and accent variants, and ones that match nothing. */
function queries(): string[] {
  const names = rows().flatMap((row) => [row['name_en'], row['name_de'], row['name_fr']]).filter((name): name is string => typeof name === 'string');
  const out = new Set<string>(['COÛT', 'cout', 'strasse', 'oesoph', 'nul\u0000in', '\u0000', 'zzzz', 'xq', 'bers', 'ber', 'tions', 'ｆｕｌ', '😀', '😀😀', 'ü', 'u']);
  for (let i = 0; i < names.length; i += 4) {
    const name = names[i]!;
    for (let length = 1; length <= 7; length++) out.add(name.slice(i % Math.max(1, name.length - length), (i % Math.max(1, name.length - length)) + length));
  }
  for (const name of ODD_NAMES) for (let at = 0; at < name.length; at++) out.add(name.slice(at, at + 4));
  return [...out].filter((q) => q.trim() !== '');
}

/**
 * Asks `answer` every query of `queries()` in turn and expects the bytes `statements` answers (the sidecar's own
 * statements); answers how many queries there were and how many of them found items.
 */
async function expectStatementsAnswers(statements: SearchIndex, answer: (q: string) => EncodedResults | Promise<EncodedResults>): Promise<{ all: number; nonEmpty: number }> {
  const all = queries();
  let nonEmpty = 0;
  const different: string[] = [];
  for (const q of all) {
    const expected = statements.search(q).text;
    if ((await answer(q)).text !== expected) different.push(JSON.stringify(q));
    if (expected.includes('"id"')) nonEmpty += 1;
  }
  expect(different, `queries answered differently: ${different.slice(0, 10).join(', ')}`).to.deep.equal([]);
  return { all: all.length, nonEmpty };
}

describe('search names in memory', () => {
  let dir: string;
  let remove: () => void;
  let sidecar: string;
  let checkHit: SearchHitCheck;

  before(async () => {
    checkHit = await contractSearchHitCheck();
    ({ dir, remove } = tempDir('ads-search-names-'));
    const kls = path.join(dir, 'kls.sqlite');
    buildKls(kls, 'names', { search_items: { columns: KLS_COLUMNS.search_items, rows: rows() } });
    const source = new Database(kls, { readonly: true });
    sidecar = path.join(dir, 'search-index.g1.sqlite');
    await buildSearchIndex(source, sidecar, { fingerprint: 'f', checkHit });
    source.close();
  });
  after(() => remove());

  for (const [where, onThisThreadMaxItems] of [['read in slices', 0], ['read at once', Number.MAX_SAFE_INTEGER]] as const) {
    it(`answers every query byte for byte as the sidecar statements do (names ${where})`, async () => {
      const statements = SearchIndex.open(sidecar, 1);
      const memory = SearchIndex.open(sidecar, 1);
      try {
        expect(await memory.loadNames(onThisThreadMaxItems)).to.be.greaterThan(0);
        const { all, nonEmpty } = await expectStatementsAnswers(statements, (q) => memory.search(q));
        // the comparison means something only when most queries find items
        expect({ nonEmpty: nonEmpty > all * 0.8, many: all > 1000 }, `${nonEmpty} of ${all} found items`).to.deep.equal({ nonEmpty: true, many: true });
      } finally {
        statements.close();
        memory.close();
      }
    });
  }

  it('reads nothing that would pass its budget: names and hits, the names alone, or neither, and answers alike', async () => {
    const statements = SearchIndex.open(sidecar, 1);
    const sizes = SearchIndex.open(sidecar, 1);
    try {
      const whole = await sizes.loadNames(0);
      const file = new Database(sidecar, { readonly: true });
      const storedNames = NameIndex.storedBytes(file);
      file.close();
      expect(storedNames, 'the names are a part of what names and hits take').to.be.within(1, whole - 1);
      for (const [budget, expected] of [
        [whole, 'names and hits'],
        [storedNames + Math.floor((whole - storedNames) / 2), 'names'],
        [storedNames - 1, 'nothing'],
      ] as const) {
        const index = SearchIndex.open(sidecar, 1);
        try {
          const held = await index.loadNames(0, undefined, budget);
          expect(held, `${expected} within ${budget} bytes`).to.be.at.most(budget);
          if (expected === 'names and hits') expect(held).to.equal(whole);
          else if (expected === 'names') expect(held).to.be.within(1, whole - 1);
          else expect(held).to.equal(0);
          await expectStatementsAnswers(statements, (q) => index.search(q));
        } finally {
          index.close();
        }
      }
    } finally {
      statements.close();
      sizes.close();
    }
  });

  it('answers every query byte for byte as the sidecar statements do, on the search thread, with the names held there', async () => {
    const thread = new SearchThread();
    const statements = SearchIndex.open(sidecar, 1);
    const remote = SearchIndex.open(sidecar, 1, thread);
    try {
      expect({ onThread: remote.onThread, running: thread.isRunning }).to.deep.equal({ onThread: true, running: true });
      const names = await remote.loadNames();
      expect(names, 'bytes of the names the thread read').to.be.greaterThan(0);
      expect(remote.namesBytes).to.equal(names);
      await expectStatementsAnswers(statements, (q) => remote.find(q));
      remote.close();
      expect(thread.isRunning, 'the thread ends with the last index open on it').to.equal(false);
    } finally {
      statements.close();
      remote.close();
      thread.stop();
    }
  });

  it('searches on its own connection, with the same answers, once the search thread has gone', async () => {
    const thread = new SearchThread();
    const statements = SearchIndex.open(sidecar, 1);
    const remote = SearchIndex.open(sidecar, 1, thread);
    try {
      await remote.loadNames();
      const expected = statements.search('kosten').text;
      expect((await remote.find('kosten')).text).to.equal(expected);
      const asked = remote.find('station');
      thread.stop();
      expect((await asked).text, 'a search the thread had not answered').to.equal(statements.search('station').text);
      expect({ onThread: remote.onThread, namesBytes: remote.namesBytes }).to.deep.equal({ onThread: false, namesBytes: 0 });
      expect((await remote.find('kosten')).text).to.equal(expected);
      expect(thread.started, 'no thread started again for it').to.equal(1);
    } finally {
      statements.close();
      remote.close();
    }
  });

  it('ends the search thread when idle, and starts it again for the next search with the same answers, reading the names again', async () => {
    const threads = threadIds();
    // ends as soon as a turn of the event loop passes without a call
    const thread = new SearchThread(0);
    const statements = SearchIndex.open(sidecar, 1);
    const remote = SearchIndex.open(sidecar, 1, thread);
    try {
      const names = await remote.loadNames();
      expect(names).to.be.greaterThan(0);
      await once(thread, 'ended');
      expect({ running: thread.isRunning, onThread: remote.onThread, started: thread.started }).to.deep.equal({ running: false, onThread: true, started: 1 });
      await until(() => threadsStartedSince(threads).length === 0, { what: 'the ended thread to leave the process' });
      // the first search after it starts it again; its names are read again meanwhile
      const first = remote.find('kosten');
      const loaded = remote.loadNames();
      expect((await first).text, 'a search while the names are read again').to.equal(statements.search('kosten').text);
      expect(await loaded, 'the same names, read again').to.equal(names);
      expect(thread.started).to.equal(2);
      await expectStatementsAnswers(statements, (q) => remote.find(q));
      expect(remote.onThread, 'still answered by the thread').to.equal(true);
      // closed while the thread has ended idle: nothing starts it again
      await once(thread, 'ended');
      remote.close();
      expect({ running: thread.isRunning, started: thread.started }).to.deep.equal({ running: false, started: 2 });
    } finally {
      statements.close();
      remote.close();
      thread.stop();
    }
  });

  it('charges the names the search thread holds to SEARCH_MEMORY_MB and ends the thread with the indexes', async () => {
    const db = new Database(path.join(dir, 'kls.sqlite'), { readonly: true });
    const own = path.join(dir, 'thread');
    fs.mkdirSync(own);
    fs.copyFileSync(sidecar, sidecarPath(own, 1));
    const thread = new SearchThread();
    const without = new SearchIndexes(pino({ level: 'silent' }), checkHit, 64 * 1024 * 1024);
    const indexes = new SearchIndexes(pino({ level: 'silent' }), checkHit, 64 * 1024 * 1024, undefined, undefined, undefined, thread);
    const source = { compositeId: 'lab.names', dir: own, generation: 1, fingerprint: 'f', db };
    try {
      const expected = (await without.search(source, 'kosten')).text;
      expect((await indexes.search(source, 'kosten')).text).to.equal(expected);
      expect(thread.isRunning).to.equal(true);
      await indexes.namesSettled();
      await without.namesSettled();
      expect(indexes.namesBytes).to.be.greaterThan(1024);
      expect(indexes.namesBytes, 'the same names, held by the thread').to.equal(without.namesBytes);
      // kept from its second search on, and the same bytes from the cache
      expect((await indexes.search(source, 'kosten')).text).to.equal(expected);
      expect(indexes.cache.size).to.equal(1);
      expect((await indexes.search(source, 'kosten')).text).to.equal(expected);
      indexes.close();
      expect(thread.isRunning).to.equal(false);
    } finally {
      indexes.close();
      without.close();
      db.close();
    }
  });

  it('reads the names of a sidecar up to the item bound before loadNames returns, and those of a larger one in slices without a thread', async () => {
    const items = Number(SearchIndex.readInfo(sidecar)?.['items']);
    const small = SearchIndex.open(sidecar, 1);
    const large = SearchIndex.open(sidecar, 1);
    try {
      const read = small.loadNames(items);
      expect(small.namesBytes, 'names in memory as loadNames returns its promise').to.be.greaterThan(0);
      expect(await read).to.equal(small.namesBytes);
      const threads = threadIds();
      const loading = large.loadNames(items - 1);
      expect(threadsStartedSince(threads), 'threads started to read the names').to.deep.equal([]);
      expect(large.namesBytes, 'names still being read').to.equal(0);
      // the larger one holds its hits beside the names
      expect(await loading).to.be.greaterThan(small.namesBytes);
    } finally {
      small.close();
      large.close();
    }
  });

  it('reads back names stored over many rows, each part split at byte counts that cut its numbers apart', async () => {
    const split = path.join(dir, 'split.sqlite');
    fs.copyFileSync(sidecar, split);
    const db = new Database(split);
    const statements = SearchIndex.open(sidecar, 1);
    let rows: number;
    try {
      const names = NameIndex.read(db);
      db.exec('DELETE FROM names');
      const insert = db.prepare('INSERT INTO names (kind_rank, part, data) VALUES (?, ?, ?)');
      db.transaction(() => {
        for (const row of names.rows(7)) insert.run(...row);
      })();
      rows = (db.prepare('SELECT count(*) AS n FROM names').get() as { n: number }).n;
      expect(NameIndex.read(db).bytes).to.equal(names.bytes);
    } finally {
      db.close();
    }
    const fromRows = SearchIndex.open(split, 1);
    try {
      expect(await fromRows.loadNames(0), `names read from ${rows} rows`).to.be.greaterThan(rows);
      await expectStatementsAnswers(statements, (q) => fromRows.search(q));
    } finally {
      fromRows.close();
      statements.close();
    }
  });

  it('answers from the hits in memory the bytes of the hits statement, for ids of missing items and across the steps of the read', async () => {
    const gaps = path.join(dir, 'gaps.sqlite');
    fs.copyFileSync(sidecar, gaps);
    const db = new Database(gaps);
    try {
      const [first, last] = db.prepare('SELECT min(id), max(id) FROM items').raw().get() as [number, number];
      // items missing at the start, within a step, over whole steps and at the end
      db.prepare('DELETE FROM items WHERE id = ? OR id = ? OR id BETWEEN ? AND ? OR id BETWEEN ? AND ?').run(first, first + 5, first + 100, first + 130, last - 2, last);
      const hits = prepareHits(db);
      let steps = 0;
      const loading = HitTable.load(db, () => false, 0, 7);
      for (let done = false; !done; steps++) {
        done = await Promise.race([loading.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
        // the connection is free between the steps
        hits.all('[[1]]');
      }
      expect(steps, 'steps of the read').to.be.greaterThan((last - first) / 7 / 2);
      const table = (await loading)!;
      expect(table.byteLength).to.be.greaterThan(Number(db.prepare('SELECT sum(octet_length(hit)) FROM items').pluck().get()));
      let seed = 5;
      const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
      const different: string[] = [];
      for (let i = 0; i < 300; i++) {
        // ids of each kind in any order, some missing, some outside the table
        const chosen = SEARCH_KINDS.map(() => Array.from(new Set(Array.from({ length: next(12) }, () => first - 3 + next(last - first + 7)))));
        const expected = encodeHitRows(hits.all(JSON.stringify(chosen)) as [number, Buffer][]);
        if (table.encode(chosen) !== expected) different.push(JSON.stringify(chosen));
      }
      expect(different).to.deep.equal([]);
      expect(await HitTable.load(db, () => true, 0)).to.equal(null);
    } finally {
      db.close();
    }
  });

  it('leaves the connection free between the slices of a names load: searches on it answer meanwhile', async () => {
    const db = new Database(sidecar, { readonly: true });
    try {
      let slices = 0;
      const loading = NameIndex.load(db, () => false, 0);
      for (let done = false; !done; slices++) {
        done = await Promise.race([loading.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
        // throws "This database connection is busy" while a statement of the load is still open
        db.prepare("SELECT fold, item FROM name_keys WHERE fold >= 'ko' ORDER BY fold LIMIT 3").all();
      }
      expect(slices, 'slices of the load').to.be.greaterThan(SEARCH_KINDS.length);
      expect((await loading)?.bytes).to.equal(NameIndex.read(db).bytes);
    } finally {
      db.close();
    }
  });

  it('answers the first search of a small index from its names in memory', async () => {
    const own = path.join(dir, 'small');
    fs.mkdirSync(own);
    const kls = path.join(own, 'kls.sqlite');
    buildKls(kls, 'small', { search_items: { columns: KLS_COLUMNS.search_items, rows: rows().slice(0, 40) } });
    const db = new Database(kls, { readonly: true });
    const indexes = new SearchIndexes(pino({ level: 'silent' }), checkHit, 64 * 1024 * 1024);
    try {
      const first = (await indexes.search({ compositeId: 'lab.small', dir: own, generation: 1, fingerprint: 'f', db }, 'kosten')).text;
      expect(indexes.namesBytes, 'names in memory when the first search answers').to.be.greaterThan(0);
      expect(first).to.include('"id"');
    } finally {
      indexes.close();
      db.close();
    }
  });

  it('finds odd names: astral letters, CJK, a NUL inside a name, and substrings of accented names', async () => {
    const memory = SearchIndex.open(sidecar, 1);
    try {
      await memory.loadNames();
      const ids = (q: string): string[] => Object.values(memory.search(q).parse()).flat().map((hit) => hit.id);
      expect(ids('😀')).to.deep.equal(['odd_11']); // one character: name prefixes only
      expect(ids('😀 r')).to.deep.equal(['odd_10']);
      expect(ids('𝔫𝔦𝔠')).to.deep.equal(['odd_12']);
      expect(ids('京 病')).to.deep.equal(['odd_13']);
      expect(ids('cafe')).to.deep.equal(['odd_14']);
      expect(ids('nul')).to.deep.equal(['odd_15']);
      expect(ids('inside')).to.deep.equal(['odd_15']); // after the NUL, which does not join it to the next name
      expect(ids('nul\u0000ins')).to.deep.equal([]); // a query with NUL matches nothing (the API answers 400)
      expect(ids('uber si')).to.deep.equal(['odd_19']);
      expect(ids('ersber')).to.deep.equal(['odd_21']);
    } finally {
      memory.close();
    }
  });

  it('stays within SEARCH_MEMORY_MB: none with 0, dropped when one index would overrun it, released with its index', async () => {
    const db = new Database(path.join(dir, 'kls.sqlite'), { readonly: true });
    const log = pino({ level: 'silent' });
    // its own folder: a SearchIndexes deletes the other generations' sidecars beside the one in service
    const own = path.join(dir, 'budget');
    fs.mkdirSync(own);
    const source = (generation: number) => ({ compositeId: 'lab.names', dir: own, generation, fingerprint: 'f', db });
    try {
      fs.copyFileSync(sidecar, sidecarPath(own, 2));
      for (const [budget, expected] of [[0, 'none'], [1024, 'none'], [64 * 1024 * 1024, 'some']] as const) {
        const indexes = new SearchIndexes(log, checkHit, budget);
        try {
          const before = (await indexes.search(source(2), 'kosten')).text;
          await indexes.namesSettled();
          if (expected === 'none') expect(indexes.namesBytes, `budget ${budget}`).to.equal(0);
          else expect(indexes.namesBytes, `budget ${budget}`).to.be.greaterThan(1024);
          indexes.cache.clear();
          expect((await indexes.search(source(2), 'kosten')).text).to.equal(before);
        } finally {
          indexes.close();
        }
        expect(indexes.namesBytes).to.equal(0);
      }
      // a newer generation replaces the older one's names
      const indexes = new SearchIndexes(log, checkHit, 64 * 1024 * 1024);
      try {
        await indexes.search(source(2), 'kosten');
        await indexes.namesSettled();
        const one = indexes.namesBytes;
        fs.copyFileSync(sidecar, sidecarPath(own, 3));
        await indexes.search(source(3), 'kosten');
        await indexes.namesSettled();
        expect(indexes.namesBytes).to.equal(one);
      } finally {
        indexes.close();
      }
    } finally {
      db.close();
    }
  });

  it('reuses a sidecar checked against the same contract and rebuilds one checked against another', async () => {
    const db = new Database(path.join(dir, 'kls.sqlite'), { readonly: true });
    const own = path.join(dir, 'contract');
    fs.mkdirSync(own);
    const source = { compositeId: 'lab.names', dir: own, generation: 1, fingerprint: 'f', db };
    const inodeAfter = async (contract: string): Promise<number> => {
      const indexes = new SearchIndexes(pino({ level: 'silent' }), { contract, check: checkHit.check }, 0);
      try {
        await indexes.search(source, 'kosten');
      } finally {
        indexes.close();
      }
      expect(SearchIndex.readInfo(sidecarPath(own, 1))).to.include({ contract });
      return fs.statSync(sidecarPath(own, 1)).ino;
    };
    try {
      const first = await inodeAfter('contract-a');
      expect(await inodeAfter('contract-a')).to.equal(first);
      expect(await inodeAfter('contract-b')).to.not.equal(first);
    } finally {
      db.close();
    }
  });

  it('fails the build, leaving no file, when a hit breaks the contract', async () => {
    const source = new Database(path.join(dir, 'kls.sqlite'), { readonly: true });
    const target = path.join(dir, 'search-index.g9.sqlite');
    try {
      let error: unknown;
      try {
        await buildSearchIndex(source, target, { fingerprint: 'f', checkHit: { contract: 'test', check: (hit) => (hit.id === 'odd_3' ? '/name/en must be shorter' : null) } });
      } catch (err) {
        error = err;
      }
      expect(String(error)).to.match(/odd_3.*SearchItem.*must be shorter/);
      expect(fs.readdirSync(dir).filter((name) => name.startsWith('search-index.g9'))).to.deep.equal([]);
    } finally {
      source.close();
    }
  });
});
