import { expect } from 'chai';
import { v8Collection } from '../../src/gc.js';
import { SearchResultCache } from '../../src/search/result-cache.js';
import { EncodedJson } from '../../src/http/encoded-json.js';
import type { EncodedResults } from '../../src/search/search-index.js';

let made = 0;
/** A body of its own each time. */
const results = (): EncodedResults => new EncodedJson(Buffer.from(`{"n":${made++},"name":"Coût"}`));
const gc = v8Collection();
const collectAllGarbage = (): void => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
const bytesOf = (found: EncodedResults | undefined): string | undefined => found?.bytes.toString('hex');

describe('search result cache', () => {
  it('keys by tenant, generation and folded query', () => {
    expect(SearchResultCache.keyOf('ost.a', 1, 'cost')).to.not.equal(SearchResultCache.keyOf('ost.a', 2, 'cost'));
    expect(SearchResultCache.keyOf('ost.a', 1, 'cost')).to.not.equal(SearchResultCache.keyOf('ost.b', 1, 'cost'));
  });

  it('evicts the least recently used entry beyond capacity and counts hits and misses', () => {
    const cache = new SearchResultCache(2);
    const a = results();
    cache.set('a', a);
    cache.set('b', results());
    expect(bytesOf(cache.get('a'))).to.equal(bytesOf(a)); // a is now the most recent
    cache.set('c', results());
    expect(cache.size).to.equal(2);
    expect(cache.get('b')).to.equal(undefined);
    expect(bytesOf(cache.get('a'))).to.equal(bytesOf(a));
    expect([cache.hits, cache.misses]).to.deep.equal([2, 1]);
  });

  it('stores nothing with capacity 0', () => {
    const cache = new SearchResultCache(0);
    cache.set('a', results());
    expect(cache.get('a')).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it('keeps the bodies it holds outside the array buffers: 64 bodies of 256 KiB, then collected', () => {
    const cache = new SearchResultCache(64);
    collectAllGarbage();
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 64; i++) cache.set(String(i), new EncodedJson(Buffer.alloc(256 * 1024, i)));
    collectAllGarbage();
    const held = process.memoryUsage().arrayBuffers - before;
    expect(held, 'bytes of array buffers held by the cache').to.be.lessThan(1024 * 1024);
    expect(cache.get('7')?.bytes.equals(Buffer.alloc(256 * 1024, 7))).to.equal(true);
  });
});
