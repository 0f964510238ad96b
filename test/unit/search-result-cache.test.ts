import { expect } from 'chai';
import { SearchResultCache } from '../../src/search/result-cache.js';
import { EncodedJson } from '../../src/http/encoded-json.js';
import type { EncodedResults } from '../../src/search/search-index.js';

const results = (): EncodedResults => new EncodedJson(Buffer.from('{}'));

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
    expect(cache.get('a')).to.equal(a); // a is now the most recent
    cache.set('c', results());
    expect(cache.size).to.equal(2);
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')).to.equal(a);
    expect([cache.hits, cache.misses]).to.deep.equal([2, 1]);
  });

  it('stores nothing with capacity 0', () => {
    const cache = new SearchResultCache(0);
    cache.set('a', results());
    expect(cache.get('a')).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });
});
