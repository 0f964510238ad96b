import { expect } from 'chai';
import { IdleCollection, memoryReducingCollection } from '../../src/idle-collection.js';

// The idle server's collection (src/idle-collection.ts): each look is one tick of the server's interval, the heap a
// figure the test sets, the collection a counter; nothing here waits for time.
describe('idle collection', () => {
  const MB = 1024 * 1024;
  const setUp = (minGrowthMb = 16) => {
    const state = { heap: 40 * MB, collections: 0 };
    const idle = new IdleCollection(
      minGrowthMb,
      () => state.heap,
      () => {
        state.collections += 1;
        state.heap = 40 * MB;
      },
    );
    // the first quiet look collects whatever the heap (below); the tests start after it
    idle.look();
    state.collections = 0;
    return { idle, state };
  };
  const busySpell = (idle: IdleCollection, requests = 3): void => {
    for (let i = 0; i < requests; i++) idle.requestStarted();
    for (let i = 0; i < requests; i++) idle.requestEnded();
  };

  it('collects at its first quiet look whatever the heap (the garbage of starting), and measures growth from there', () => {
    const state = { heap: 48 * MB, collections: 0 };
    const idle = new IdleCollection(16, () => state.heap, () => {
      state.collections += 1;
      state.heap = 25 * MB;
    });
    idle.requestStarted();
    expect(idle.look(), 'a request in flight').to.equal(null);
    idle.requestEnded();
    expect(idle.look()?.heapMb).to.deep.equal({ before: 48, after: 25 });
    busySpell(idle);
    state.heap = 40 * MB;
    idle.look();
    expect(idle.look()?.heapMb, '15 MB above the heap after the last collection: not yet').to.equal(undefined);
    busySpell(idle);
    state.heap = 41 * MB;
    idle.look();
    expect(idle.look()?.heapMb).to.deep.equal({ before: 41, after: 25 });
    expect(state.collections).to.equal(2);
  });

  it('collects once a whole look has passed without a request after a busy spell, and answers the heap before and after', () => {
    const { idle, state } = setUp();
    busySpell(idle);
    state.heap = 90 * MB;
    expect(idle.look(), 'requests started since the last look').to.equal(null);
    const collected = idle.look();
    expect(state.collections).to.equal(1);
    expect(collected?.heapMb).to.deep.equal({ before: 90, after: 40 });
  });

  it('collects only once per busy spell', () => {
    const { idle, state } = setUp();
    busySpell(idle);
    state.heap = 90 * MB;
    idle.look();
    idle.look();
    expect(idle.look()).to.equal(null);
    expect(idle.look()).to.equal(null);
    expect(state.collections).to.equal(1);
    busySpell(idle);
    state.heap = 90 * MB;
    idle.look();
    expect(idle.look()).to.not.equal(null);
    expect(state.collections).to.equal(2);
  });

  it('does not collect while a request is in flight, however long it takes', () => {
    const { idle, state } = setUp();
    idle.requestStarted();
    state.heap = 90 * MB;
    for (let i = 0; i < 5; i++) expect(idle.look()).to.equal(null);
    idle.requestEnded();
    expect(idle.look()).to.not.equal(null);
    expect(state.collections).to.equal(1);
  });

  it('does not collect while requests keep arriving between looks', () => {
    const { idle, state } = setUp();
    state.heap = 90 * MB;
    for (let i = 0; i < 5; i++) {
      busySpell(idle, 1);
      expect(idle.look()).to.equal(null);
    }
    expect(state.collections).to.equal(0);
  });

  it('collects after many requests even when the heap did not grow: what they left outside it does not show there', () => {
    const state = { heap: 40 * MB, collections: 0 };
    const idle = new IdleCollection(16, () => state.heap, () => (state.collections += 1), 100);
    idle.look();
    busySpell(idle, 99);
    idle.look();
    expect(idle.look(), '99 requests').to.equal(null);
    busySpell(idle, 1);
    idle.look();
    expect(idle.look(), '100 requests').to.not.equal(null);
    expect(state.collections).to.equal(2);
    // counted from the last collection
    busySpell(idle, 99);
    idle.look();
    expect(idle.look()).to.equal(null);
  });

  it('does not collect when the heap has grown by less than the threshold since the last collection', () => {
    const { idle, state } = setUp(16);
    busySpell(idle);
    state.heap = 40 * MB + 15 * MB;
    idle.look();
    expect(idle.look()).to.equal(null);
    state.heap = 40 * MB + 16 * MB;
    expect(idle.look()).to.not.equal(null);
    expect(state.collections).to.equal(1);
  });

  it("runs V8's own collection by default: the garbage of a busy spell leaves the heap", () => {
    const idle = new IdleCollection(0);
    // arrays of 800 KB go straight to V8's large-object space, whose pages a full collection frees
    let garbage: number[][] | null = Array.from({ length: 40 }, () => new Array<number>(100_000).fill(0.5));
    expect(garbage.length).to.equal(40);
    garbage = null;
    const collected = idle.look();
    expect(collected).to.not.equal(null);
    expect(collected!.heapMb.after).to.be.below(collected!.heapMb.before);
  });

  it('collects without --expose-gc, leaves no gc on the global object, and lets go of a cache first', () => {
    let emptied = 0;
    const collect = memoryReducingCollection(() => (emptied += 1));
    expect(collect).to.not.throw();
    expect(collect).to.not.throw();
    expect({ emptied, gcOnGlobal: 'gc' in globalThis }).to.deep.equal({ emptied: 2, gcOnGlobal: false });
  });
});
