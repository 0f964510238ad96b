import { expect } from 'chai';
import { CacheBudget, NoRoomError, type Evictor } from '../../src/store/cache-budget.js';
import { ListingError, type ObjectStore, type StoredObject } from '../../src/store/object-store.js';
import { parseAnnouncement } from '../../src/store/refresh-channel.js';
import { settledWithin } from '../../src/store/tenant-cache.js';
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
    // c, d never used, then a, b used once; b busy, c being written: d then a go
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

/** A budget of 100 bytes over tenants of 20 (five fit), evicting into `ev.evicted`. */
function smallBudget(busy = new Set<string>()): { budget: CacheBudget; evicted: string[] } {
  const ev = evictor(busy);
  const budget = (ev.budget = new CacheBudget(100, ev));
  return { budget, evicted: ev.evicted };
}

/** A tenant of 20 bytes fetched (room reserved, files settled) and used `reads` times, as a request does. */
function fetchAndRead(budget: CacheBudget, id: string, reads: number): void {
  const room = budget.tryReserve(id, 20);
  expect(room, `room for ${id}`).not.to.equal(null);
  budget.settle(id, 20);
  room!.release();
  for (let i = 0; i < reads; i++) budget.touch(id, i > 0);
}

describe('CacheBudget: least frequently used with ageing', () => {
  it('keeps a tenant used again against a scan of tenants used once', () => {
    const { budget, evicted } = smallBudget();
    fetchAndRead(budget, 'hot', 2);
    expect(budget.isReused('hot')).to.equal(true);
    for (let i = 0; i < 50; i++) {
      fetchAndRead(budget, `scan${i}`, 1);
      budget.touch('hot');
    }
    expect(evicted).not.to.include('hot');
    expect(evicted).to.have.length(46);
    expect(budget.tenants()).to.deep.equal(['scan46', 'scan47', 'scan48', 'scan49', 'hot']);
  });

  it('keeps a tenant read more often than each scanned one against a scan that reads each tenant twice, in every round', () => {
    const { budget, evicted } = smallBudget();
    fetchAndRead(budget, 'hot', 3);
    // three rounds over 40 tenants, each read twice; the hot tenant read after every 8th (less often than the
    // cache's five tenants are fetched: recency alone loses it on every read)
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 40; i++) {
        fetchAndRead(budget, `scan${i}`, 2);
        if (i % 8 === 7) budget.touch('hot');
        expect(evicted, `round ${round}, tenant ${i}`).not.to.include('hot');
      }
    }
    expect(evicted).to.have.length(3 * 40 - 4);
    expect(budget.usesOf('hot')).to.be.greaterThan(budget.usesOf('scan39'));
  });

  it('keeps a tenant read only a little more often than each tenant of a fast scan of tenants read once (its hits count twice)', () => {
    const { budget, evicted } = smallBudget();
    fetchAndRead(budget, 'hot', 2);
    // 59 tenants read once in turn, ten rounds; the hot tenant read after every 40th: 1.5 times as often as each
    for (let i = 0; i < 59 * 10; i++) {
      fetchAndRead(budget, `scan${i % 59}`, 1);
      if (i % 40 === 39) budget.touch('hot');
      expect(evicted, `fetch ${i}`).not.to.include('hot');
    }
  });

  it('forgets a tenant no longer used within four halvings, and keeps the one used now from the start', () => {
    const { budget, evicted } = smallBudget();
    fetchAndRead(budget, 'before', 40);
    expect(budget.usesOf('before')).to.equal(15);
    // use shifts: "before" is not read any more, "now" is, every other fetch of a scan of tenants read once
    fetchAndRead(budget, 'now', 2);
    let uses = 0;
    let forgottenAfter: number | null = null;
    for (let i = 0; i < 800 && forgottenAfter === null; i++) {
      fetchAndRead(budget, `scan${i}`, 1);
      uses += 1;
      if (i % 2 === 0) {
        // a use of a tenant whose count is full does not bring the halving nearer
        if (budget.usesOf('now') < 15) uses += 1;
        budget.touch('now');
      }
      expect(evicted).not.to.include('now');
      if (evicted.includes('before')) forgottenAfter = uses;
    }
    // ageing halves every count after 10 uses per cached tenant (at least 100 uses): 15 → 7 → 3 → 1 ties the scan
    expect(forgottenAfter, 'the tenant no longer used was evicted').not.to.equal(null);
    expect(forgottenAfter!).to.be.at.most(4 * 100);
    expect(budget.tenants().at(-1)).to.equal('now');
  });

  it('still takes in a new tenant when every cached one is used more often (the least frequently used goes)', () => {
    const { budget, evicted } = smallBudget();
    for (const [id, reads] of [['a', 5], ['b', 3], ['c', 4], ['d', 6], ['e', 7]] as const) fetchAndRead(budget, id, reads);
    fetchAndRead(budget, 'new', 1);
    expect(evicted).to.deep.equal(['b']);
  });

  it('makes a write wait rather than evict a tenant used more often than one in use or on its way in', () => {
    const busy = new Set(['p']);
    const ev = evictor(busy);
    const budget = (ev.budget = new CacheBudget(100, ev));
    budget.settle('hot', 40);
    budget.touch('hot', false);
    budget.touch('hot');
    budget.settle('p', 40);
    expect(budget.couldFit('new', 40)).to.equal(false);
    expect(budget.tryReserve('new', 40)).to.equal(null);
    expect(ev.evicted).to.deep.equal([]);
    // a download on its way in holds at the one use it is fetched for
    busy.delete('p');
    budget.drop('p');
    const download = budget.tryReserve('other', 20)!;
    expect(budget.tryReserve('new', 60)).to.equal(null);
    expect(ev.evicted).to.deep.equal([]);
    download.release();
    budget.settle('p', 40);
    // once no tenant used less often is held, the one used more often may go
    expect(budget.tryReserve('new', 80)).not.to.equal(null);
    expect(ev.evicted).to.deep.equal(['p', 'hot']);
  });

  it('lets a tenant in use whose count has aged to 0 hold back no tenant used once: a long lease does not stop every fetch', () => {
    const busy = new Set<string>();
    const { budget, evicted } = smallBudget(busy);
    // a tenant fetched and then held by one long lease (a slow export) while the others are read
    fetchAndRead(budget, 'long', 1);
    busy.add('long');
    // enough uses of other tenants (not cached) to halve every count until the long-held one is at 0
    for (let i = 0; i < 200; i++) budget.touch(`elsewhere${i}`, false);
    expect(budget.usesOf('long')).to.equal(0);
    // tenants fetched and read once each since (count 1), idle, fill the cache
    for (const id of ['s1', 's2', 's3', 's4']) fetchAndRead(budget, id, 1);
    expect(evicted).to.deep.equal([]);
    // a newcomer takes the room of one of them, as it would without the long lease
    expect(budget.tryReserve('new', 20), 'room for the newcomer').not.to.equal(null);
    expect(evicted).to.deep.equal(['s1']);
  });

  it('does not age the counts faster for reads of a tenant whose count is full: cheap hits of one tenant do not push out a hot one', () => {
    const { budget, evicted } = smallBudget();
    fetchAndRead(budget, 'hot', 8);
    fetchAndRead(budget, 'mine', 8);
    // a scan of 59 tenants read twice each, one per step; the hot tenant read every 10th step (six times as often
    // as each scanned one); the scanner's own tenant, cached, read 20 times a step (a hit costs it nothing)
    for (let step = 1; step <= 590; step++) {
      fetchAndRead(budget, `scan${step % 59}`, 2);
      for (let i = 0; i < 20; i++) budget.touch('mine');
      if (step % 10 === 0) {
        expect(evicted, `step ${step}`).not.to.include('hot');
        budget.touch('hot');
      }
    }
  });

  it('holds back nothing for a guest on its way in: a warm-up fetch is fetched for no use, a request does not wait for it', () => {
    const { budget, evicted } = smallBudget();
    fetchAndRead(budget, 'a', 3);
    fetchAndRead(budget, 'b', 4);
    fetchAndRead(budget, 'c', 5);
    // a warm-up fetch takes the free room left
    budget.admitAsGuest('warm');
    const warming = budget.tryReserve('warm', 40)!;
    expect(warming).not.to.equal(null);
    // a request's fetch evicts the least used tenant meanwhile
    expect(budget.tryReserve('asked', 20), 'room for the asked tenant').not.to.equal(null);
    expect(evicted).to.deep.equal(['a']);
    warming.release();
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

describe('waiting for a fetch', () => {
  it('stops waiting at once for a client that has gone already (it left while its fetch was admitted), not after the wait', async () => {
    const gone = new AbortController();
    gone.abort();
    const never = new Promise<void>(() => undefined);
    const asked = performance.now();
    expect(await settledWithin(never, 5000, gone.signal)).to.equal(false);
    expect(performance.now() - asked).to.be.below(1000);
  });

  it('stops waiting when the client goes, and says whether the fetch ended in time otherwise', async () => {
    const gone = new AbortController();
    const waiting = settledWithin(new Promise<void>(() => undefined), 5000, gone.signal);
    gone.abort();
    expect(await waiting).to.equal(false);
    expect(await settledWithin(Promise.resolve(), 5000, new AbortController().signal)).to.equal(true);
  });
});
