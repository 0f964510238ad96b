import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { pino } from 'pino';
import { loadContractDocument } from '../../src/contract-document.js';
import { HitReader } from '../../src/search/hit-reader.js';
import { buildSearchIndex } from '../../src/search/index-builder.js';
import { searchHitCheck } from '../../src/search/search-hit.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { SEARCH_KINDS } from '../../src/search/search-kinds.js';
import { KLS_COLUMNS, buildKls, searchRow } from '../helpers/kls-builder.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const QUERIES = ['kosten', 'station', 'fall', 'ber', 'cht 1', 'zzz'];

/** Descriptors of this process (any thread) open on `file` (Linux). */
function descriptorsOn(file: string): number {
  let count = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === file) count += 1;
    } catch {
      // closed meanwhile
    }
  }
  return count;
}

/** Starts the reader's thread and waits until reads go to it. */
async function readyReader(reader: HitReader): Promise<void> {
  await until(() => reader.available(), { deadline: 20_000, every: 10, what: 'the hit reader to start' });
}

describe('search hit reader thread', () => {
  let dir: string;
  let remove: () => void;
  let sidecar: string;
  /** The answers read on the main thread alone, by query. */
  const expected = new Map<string, string>();
  const log = pino({ level: 'silent' });

  before(async () => {
    ({ dir, remove } = tempDir('ads-hit-reader-'));
    const kls = path.join(dir, 'kls.sqlite');
    const words = ['Fallkosten', 'Station', 'Übersicht', 'Kosten', 'Berichte'];
    const rows = Array.from({ length: 900 }, (_, i) =>
      searchRow(SEARCH_KINDS[i % SEARCH_KINDS.length]!, `item_${i}`, `${words[i % 5]} ${words[(i * 7) % 5]} ${i}`, null, null),
    );
    buildKls(kls, 'reader', { search_items: { columns: KLS_COLUMNS.search_items, rows } });
    const source = new Database(kls, { readonly: true });
    sidecar = path.join(dir, 'search-index.g1.sqlite');
    await buildSearchIndex(source, sidecar, { fingerprint: 'f', checkHit: searchHitCheck(loadContractDocument(process.cwd())) });
    source.close();
    const alone = SearchIndex.open(sidecar, 1);
    for (const q of QUERIES) expected.set(q, (await alone.search(q)).bytes.toString());
    alone.close();
    expect([...expected.values()].filter((body) => body.includes('"id"'))).to.have.length(5);
  });
  after(() => remove());

  /** A copy of the sidecar, so that a test may delete it. */
  const copy = (name: string): string => {
    const file = path.join(dir, name);
    fs.copyFileSync(sidecar, file);
    return file;
  };

  it('answers reads in flight when the index closes, then closes its connection', async () => {
    const reader = new HitReader(log);
    const file = copy('closing.sqlite');
    const index = SearchIndex.open(file, 1, reader);
    try {
      await readyReader(reader);
      await index.search('kosten');
      expect(descriptorsOn(file)).to.equal(2); // this thread's connection and the reader's
      const answers = QUERIES.map((q) => index.search(q));
      index.close();
      expect(index.isClosed).to.equal(true);
      const bodies = (await Promise.all(answers)).map((answer) => answer.bytes.toString());
      expect(bodies).to.deep.equal(QUERIES.map((q) => expected.get(q)));
      expect(reader.reads).to.equal(6); // 'zzz' finds nothing and reads nothing
      await until(() => descriptorsOn(file) === 0, { deadline: 2000, every: 10, what: `the reader to close ${file}` });
      let error: unknown;
      await index.search('kosten').catch((err: unknown) => (error = err));
      expect(String(error)).to.match(/closed/);
    } finally {
      index.close();
      await reader.close();
    }
  });

  it('reads on the main thread when the thread cannot open the file (deleted after the index opened it)', async () => {
    const reader = new HitReader(log);
    const file = copy('deleted.sqlite');
    const index = SearchIndex.open(file, 1, reader);
    try {
      await readyReader(reader);
      fs.rmSync(file);
      const bodies = await Promise.all(QUERIES.map(async (q) => (await index.search(q)).bytes.toString()));
      expect(bodies).to.deep.equal(QUERIES.map((q) => expected.get(q)));
      expect(reader.reads).to.equal(0);
    } finally {
      index.close();
      await reader.close();
    }
  });

  it('ends the thread after its idle time and starts it again for the next searches', async () => {
    const reader = new HitReader(log, 4, 200);
    const index = SearchIndex.open(copy('idle.sqlite'), 1, reader);
    try {
      await readyReader(reader);
      expect((await index.search('kosten')).bytes.toString()).to.equal(expected.get('kosten'));
      expect(reader.reads).to.equal(1);
      expect(reader.running).to.equal(true);
      const answered = performance.now();
      await until(() => !reader.running, { deadline: 10_000, every: 10, what: 'the idle thread to end' });
      expect(performance.now() - answered, 'ms until the thread ended').to.be.at.least(reader.idleMs - 10);
      // the next search is read on the main thread and starts the thread; later ones go to it again
      expect((await index.search('station')).bytes.toString()).to.equal(expected.get('station'));
      expect(reader.reads).to.equal(1);
      expect(reader.running).to.equal(true);
      await readyReader(reader);
      expect((await index.search('fall')).bytes.toString()).to.equal(expected.get('fall'));
      expect(reader.reads).to.equal(2);
    } finally {
      index.close();
      await reader.close();
    }
  });

  it('keeps at most maxOpen connections in its thread, the least recently used closed first', async () => {
    const reader = new HitReader(log, 1);
    const files = ['a.sqlite', 'b.sqlite', 'c.sqlite'].map(copy);
    const indexes = files.map((file) => SearchIndex.open(file, 1, reader));
    try {
      await readyReader(reader);
      for (const index of indexes) expect((await index.search('kosten')).bytes.toString()).to.equal(expected.get('kosten'));
      expect(files.map(descriptorsOn)).to.deep.equal([1, 1, 2]); // this thread's three, the reader's last one
      expect((await indexes[0]!.search('ber')).bytes.toString()).to.equal(expected.get('ber'));
      expect(files.map(descriptorsOn)).to.deep.equal([2, 1, 1]);
      expect(reader.reads).to.equal(4);
    } finally {
      for (const index of indexes) index.close();
      await reader.close();
    }
  });

  it('once closed, starts no thread and leaves every read to the main thread', async () => {
    const reader = new HitReader(log);
    const index = SearchIndex.open(copy('closed.sqlite'), 1, reader);
    try {
      await reader.close();
      expect(reader.available()).to.equal(false);
      expect((await index.search('ber')).bytes.toString()).to.equal(expected.get('ber'));
      expect({ running: reader.running, reads: reader.reads }).to.deep.equal({ running: false, reads: 0 });
    } finally {
      index.close();
    }
  });
});
