import { expect } from 'chai';
import { SearchResultCache } from '../../src/search/result-cache.js';
import { EncodedJson } from '../../src/common/encoded-json.js';
import type { EncodedResults } from '../../src/ports/tenant-reads.js';

let made = 0;
/** A body of its own each time. */
const results = (): EncodedResults => new EncodedJson(`{"n":${made++},"name":"Coût"}`);
const textOf = (found: EncodedResults | undefined): string | undefined => found?.text;

describe('search result cache', () => {
  it('keys by tenant, generation and folded query', () => {
    expect(SearchResultCache.keyOf('ost.a', 1, 'cost')).to.not.equal(SearchResultCache.keyOf('ost.a', 2, 'cost'));
    expect(SearchResultCache.keyOf('ost.a', 1, 'cost')).to.not.equal(SearchResultCache.keyOf('ost.b', 1, 'cost'));
  });

  it('keeps a result from the second time its query is searched, remembering the last capacity × 4 queries searched once', () => {
    const cache = new SearchResultCache(2);
    const a = results();
    cache.set('a', results());
    expect(cache.get('a'), 'searched once').to.equal(undefined);
    cache.set('a', a);
    expect(textOf(cache.get('a'))).to.equal(textOf(a));
    // eight other queries searched once: 'b' is still remembered, then a ninth pushes it out
    cache.set('b', results());
    for (let i = 0; i < 7; i++) cache.set(`once ${i}`, results());
    cache.set('b', results());
    expect(cache.size).to.equal(2);
    for (let i = 0; i < 9; i++) cache.set(`c ${i}`, results());
    cache.set('c 0', results());
    expect(cache.size, "'c 0' forgotten: searched once again").to.equal(2);
    expect(cache.get('c 0')).to.equal(undefined);
    cache.clear();
    cache.set('a', results());
    expect(cache.get('a'), 'searched once since clear').to.equal(undefined);
  });

  it('evicts the least recently used entry beyond capacity and counts hits and misses', () => {
    const cache = new SearchResultCache(2);
    const a = results();
    // each kept from its second search
    const put = (key: string, value: EncodedResults): void => {
      cache.set(key, results());
      cache.set(key, value);
    };
    put('a', a);
    put('b', results());
    expect(textOf(cache.get('a'))).to.equal(textOf(a)); // a is now the most recent
    put('c', results());
    expect(cache.size).to.equal(2);
    expect(cache.get('b')).to.equal(undefined);
    expect(textOf(cache.get('a'))).to.equal(textOf(a));
    expect([cache.hits, cache.misses]).to.deep.equal([2, 1]);
  });

  it('stores nothing with capacity 0', () => {
    const cache = new SearchResultCache(0);
    cache.set('a', results());
    expect(cache.get('a')).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });
});
