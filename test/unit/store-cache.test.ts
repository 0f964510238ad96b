import { expect } from 'chai';
import { CacheBudget, NoRoomError, type Evictor } from '../../src/store/cache-budget.js';
import { ListingError, type ObjectStore, type StoredObject } from '../../src/store/object-store.js';
import { parseAnnouncement } from '../../src/store/refresh-channel.js';
import { listPrefix } from '../../src/store/store-listing.js';
import { warmOrder } from '../../src/store/warm-list.js';

/** An evictor over a set of busy tenants that records what it evicted (and drops it from the budget, as the cache does). */
function evictor(busy: Set<string>): Evictor & { evicted: string[]; budget?: CacheBudget } {
  const self: Evictor & { evicted: string[]; budget?: CacheBudget } = {
    evicted: [],
    canEvict: (id) => !busy.has(id),
    evict(id) {
      self.evicted.push(id);
      self.budget!.drop(id);
    },
  };
  return self;
}

describe('CacheBudget', () => {
  it('evicts least recently used tenants first, never a busy one nor the one being written', () => {
    const busy = new Set(['b']);
    const ev = evictor(busy);
    const budget = (ev.budget = new CacheBudget(100, ev));
    for (const id of ['a', 'b', 'c', 'd']) budget.settle(id, 20);
    budget.touch('a');
    budget.touch('b');
    const room = budget.tryReserve('c', 50);
    expect(room).not.to.equal(null);
    // probation c, d, then protected a, b (used again); b busy, c being written: d then a go
    expect(ev.evicted).to.deep.equal(['d', 'a']);
    expect(budget.usedBytes + budget.reservedBytes).to.be.at.most(100);
    room!.release();
    expect(budget.reservedBytes).to.equal(0);
  });

  it('evicts nothing when the room cannot be made, and grows a reservation only within the bound', () => {
    const ev = evictor(new Set(['a', 'b']));
    const budget = (ev.budget = new CacheBudget(100, ev));
    budget.settle('a', 40);
    budget.settle('b', 40);
    expect(budget.tryReserve('c', 30)).to.equal(null);
    expect(ev.evicted).to.deep.equal([]);
    const room = budget.tryReserve('c', 20)!;
    expect(room.grow(21)).to.equal(false);
    expect(room.bytes).to.equal(20);
    expect(budget.couldFit('c', 21)).to.equal(false);
  });

  it('lets a waiting reservation in when a tenant becomes idle, and refuses it past its wait', async () => {
    const busy = new Set(['a']);
    const ev = evictor(busy);
    const budget = (ev.budget = new CacheBudget(100, ev));
    budget.settle('a', 90);
    const waiting = budget.reserve('b', 50, 60_000);
    busy.delete('a');
    budget.retryWaiting();
    const room = await waiting;
    expect(room.bytes).to.equal(50);
    expect(ev.evicted).to.deep.equal(['a']);
    busy.add('b');
    budget.settle('b', 50);
    room.release();
    let refused: unknown = null;
    await budget.reserve('c', 80, 0).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(NoRoomError);
  });
});

describe('CacheBudget: segmented LRU', () => {
  it('keeps a tenant used again against a scan of tenants used once', () => {
    const ev = evictor(new Set());
    const budget = (ev.budget = new CacheBudget(100, ev));
    budget.settle('hot', 20);
    budget.touch('hot', false);
    budget.touch('hot');
    expect(budget.isProtected('hot')).to.equal(true);
    // 50 tenants of 20 bytes, each fetched (room reserved, settled) and used once: only probation churns
    for (let i = 0; i < 50; i++) {
      const id = `scan${i}`;
      const room = budget.tryReserve(id, 20)!;
      budget.settle(id, 20);
      room.release();
      budget.touch(id, false);
      budget.touch('hot');
    }
    expect(ev.evicted).not.to.include('hot');
    expect(ev.evicted).to.have.length(46);
    expect(budget.tenants()).to.deep.equal(['scan46', 'scan47', 'scan48', 'scan49', 'hot']);
  });

  it('holds at most its share in the protected segment, the least recently used moving back to probation', () => {
    const ev = evictor(new Set());
    const budget = (ev.budget = new CacheBudget(100, ev));
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      budget.settle(id, 20);
      budget.touch(id);
    }
    // 80 bytes protected at most: a went back to probation, first in line
    expect(['a', 'b', 'c', 'd', 'e'].filter((id) => budget.isProtected(id))).to.deep.equal(['b', 'c', 'd', 'e']);
    expect(budget.tenants()[0]).to.equal('a');
    expect(budget.tryReserve('f', 20)).not.to.equal(null);
    expect(ev.evicted).to.deep.equal(['a']);
  });

  it('makes a write wait rather than evict a protected tenant while a tenant on probation is in use', () => {
    const busy = new Set(['p']);
    const ev = evictor(busy);
    const budget = (ev.budget = new CacheBudget(100, ev));
    budget.settle('hot', 40);
    budget.touch('hot');
    budget.settle('p', 40);
    expect(budget.couldFit('new', 40)).to.equal(false);
    expect(budget.tryReserve('new', 40)).to.equal(null);
    expect(ev.evicted).to.deep.equal([]);
    // a download on its way to probation holds it too
    busy.delete('p');
    budget.drop('p');
    const download = budget.tryReserve('other', 20)!;
    expect(budget.tryReserve('new', 60)).to.equal(null);
    expect(ev.evicted).to.deep.equal([]);
    download.release();
    budget.settle('p', 40);
    // once probation holds nothing else, a protected tenant may go
    expect(budget.tryReserve('new', 80)).not.to.equal(null);
    expect(ev.evicted).to.deep.equal(['p', 'hot']);
  });

  it('evicts nothing for a guest (a warm-up fetch) until it is used', () => {
    const ev = evictor(new Set());
    const budget = (ev.budget = new CacheBudget(100, ev));
    budget.settle('a', 60);
    budget.admitAsGuest('g');
    expect(budget.tryReserve('g', 50)).to.equal(null);
    const room = budget.tryReserve('g', 40)!;
    expect(room.grow(41)).to.equal(false);
    expect(ev.evicted).to.deep.equal([]);
    budget.welcome('g');
    expect(room.grow(50)).to.equal(true);
    expect(ev.evicted).to.deep.equal(['a']);
  });
});

describe('warm list', () => {
  it('names tenants in its order, packs in composite-ID order, each once, only those listed', () => {
    const listed = ['west.b', 'ost.a', 'west.a', 'ost.b'];
    expect(warmOrder(['west.*', 'ost.b', 'west.a', 'nord.x', 'nord.*'], listed)).to.deep.equal(['west.a', 'west.b', 'ost.b']);
  });
});

describe('store refresh announcements', () => {
  it('reads the scopes a refresh has and ignores anything else', () => {
    expect(parseAnnouncement('{"from":"ab","scope":{"kind":"all"}}')).to.deep.equal({ from: 'ab', scope: { kind: 'all' } });
    expect(parseAnnouncement('{"from":"ab","scope":{"kind":"tenant","pack":"ost","slug":"x"}}')).to.deep.equal({ from: 'ab', scope: { kind: 'tenant', pack: 'ost', slug: 'x' } });
    for (const payload of [
      undefined,
      'not json',
      'null',
      '{"from":"ab","scope":{"kind":"pack","pack":"../etc"}}',
      '{"from":"ab","scope":{"kind":"tenant","pack":"ost"}}',
      '{"from":1,"scope":{"kind":"all"}}',
      `{"from":"ab","scope":{"kind":"all"},"pad":"${'x'.repeat(1000)}"}`,
    ]) {
      expect(parseAnnouncement(payload), String(payload)).to.equal(null);
    }
  });
});

describe('listPrefix', () => {
  const object = (key: string): StoredObject => ({ key, size: 1, etag: 'e' });
  const failing = (objects: StoredObject[]): ObjectStore => ({
    list: () =>
      Promise.reject(
        objects.length === 0 ? Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:9000'), { code: 'ECONNREFUSED' }) : new ListingError('page 2 failed', objects),
      ),
    download: () => Promise.reject(new Error('unused')),
    stat: () => Promise.reject(new Error('unused')),
  });

  it('keeps the objects of the pages that arrived, but the last tenant folder among them, and names the failure', async () => {
    const listing = await listPrefix(failing([object('p/ost/a/kls.sqlite'), object('p/ost/a/sis.sqlite'), object('p/ost/b/kls.sqlite')]), 'p/');
    expect(listing.complete).to.equal(false);
    expect(listing.objects.map((o) => o.key)).to.deep.equal(['p/ost/a/kls.sqlite', 'p/ost/a/sis.sqlite']);
    expect(listing.error).to.match(/listing incomplete: page 2 failed; the 2 objects listed before stay known/);
  });

  it('says the store is unreachable when no page arrived: in words for clients, with the address and errno for the log', async () => {
    const listing = await listPrefix(failing([]), 'p/');
    expect(listing).to.deep.include({ objects: [], complete: false });
    expect(listing.error).to.equal('object store unreachable: the object store could not be reached');
    expect(listing.detail).to.equal('object store unreachable: listing failed: connect ECONNREFUSED 10.0.0.7:9000');
  });
});
