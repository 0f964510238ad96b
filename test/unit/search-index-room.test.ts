import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import type { BuildRoom } from '../../src/search/build-room.js';
import { buildSearchIndex } from '../../src/search/index-builder.js';
import type { SearchHitCheck } from '../../src/search/search-hit.js';
import { SEARCH_KINDS } from '../../src/search/search-kinds.js';
import { contractSearchHitCheck } from '../helpers/contract.js';
import { KLS_COLUMNS, buildKls, searchRow } from '../helpers/kls-builder.js';
import { tempDir } from '../helpers/server.js';

/** A room of `bytes` that grows up to `limit` when asked, recording the largest it was given. */
function room(bytes: number, limit: number): BuildRoom & { released: boolean; largest: number } {
  const self = {
    bytes,
    released: false,
    largest: bytes,
    grow(to: number) {
      if (to > limit) return false;
      self.bytes = Math.max(self.bytes, to);
      self.largest = Math.max(self.largest, self.bytes);
      return true;
    },
    release() {
      self.released = true;
    },
  };
  return self;
}

describe('search index builds within a room (bounded store cache)', () => {
  let dir: string;
  let remove: () => void;
  let kls: Database.Database;
  let checkHit: SearchHitCheck;
  let unbounded: number;

  before(async () => {
    checkHit = await contractSearchHitCheck();
    ({ dir, remove } = tempDir('ads-index-room-'));
    const file = path.join(dir, 'kls.sqlite');
    const items = Array.from({ length: 20_000 }, (_, i) => searchRow(SEARCH_KINDS[i % SEARCH_KINDS.length]!, `item_${i}`, `Material ${i} sterile pack`, `Material ${i} Sterilgut`, null));
    buildKls(file, 'room', { search_items: { columns: KLS_COLUMNS.search_items, rows: items } });
    kls = new Database(file, { readonly: true });
    const target = path.join(dir, 'unbounded.sqlite');
    await buildSearchIndex(kls, target, { fingerprint: 'f', checkHit });
    unbounded = fs.statSync(target).size;
  });
  after(() => {
    kls.close();
    remove();
  });

  it('grows its room before the steps that need it, and its file never passes the room it was given', async () => {
    const given = room(256 * 1024, Number.MAX_SAFE_INTEGER);
    const target = path.join(dir, 'grown.sqlite');
    await buildSearchIndex(kls, target, { fingerprint: 'f', checkHit, room: given });
    expect(given.largest).to.be.greaterThan(256 * 1024);
    expect(fs.statSync(target).size).to.equal(unbounded);
    expect(fs.statSync(target).size).to.be.at.most(given.bytes);
  });

  it('fails, leaving no file behind, when its room cannot grow to what the index needs', async () => {
    const given = room(256 * 1024, 512 * 1024);
    const target = path.join(dir, 'cramped.sqlite');
    let failure: unknown = null;
    await buildSearchIndex(kls, target, { fingerprint: 'f', checkHit, room: given }).catch((err: unknown) => (failure = err));
    expect(unbounded).to.be.greaterThan(512 * 1024);
    expect(String(failure)).to.match(/full/);
    expect(fs.readdirSync(dir).filter((name) => name.startsWith('cramped'))).to.deep.equal([]);
  });
});
