import { expect } from 'chai';
import { SearchResultCache } from '../../src/search/result-cache.js';
import { emptyResults } from '../../src/search/search-index.js';
import { encodeJson, reusedEncoding, sharedBody } from '../../src/http/shared-body.js';

describe('search result cache', () => {
  it('keys by tenant, generation and folded query', () => {
    expect(SearchResultCache.keyOf('ost.a', 1, 'cost')).to.not.equal(SearchResultCache.keyOf('ost.a', 2, 'cost'));
    expect(SearchResultCache.keyOf('ost.a', 1, 'cost')).to.not.equal(SearchResultCache.keyOf('ost.b', 1, 'cost'));
  });

  it('evicts the least recently used entry beyond capacity and counts hits and misses', () => {
    const cache = new SearchResultCache(2);
    const a = emptyResults();
    cache.set('a', a);
    cache.set('b', emptyResults());
    expect(cache.get('a')).to.equal(a); // a is now the most recent
    cache.set('c', emptyResults());
    expect(cache.size).to.equal(2);
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')).to.equal(a);
    expect([cache.hits, cache.misses]).to.deep.equal([2, 1]);
  });

  it('stores nothing with capacity 0', () => {
    const cache = new SearchResultCache(0);
    cache.set('a', emptyResults());
    expect(cache.get('a')).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });
});

describe('shared response bodies', () => {
  it('reuses the bytes of a shared body only for the same operation, status and media type', () => {
    const body = sharedBody({ probes: [] as string[] });
    expect(reusedEncoding(body, 'getJumpbar', 200, 'application/json')).to.equal(undefined);
    const bytes = encodeJson(body, 'getJumpbar', 200, 'application/json');
    expect(Buffer.isBuffer(bytes)).to.equal(true);
    expect(bytes.toString()).to.equal('{"probes":[]}');
    expect(reusedEncoding(body, 'getJumpbar', 200, 'application/json')).to.equal(bytes);
    expect(reusedEncoding(body, 'getJumpbar', 201, 'application/json')).to.equal(undefined);
    expect(reusedEncoding(body, 'otherOperation', 200, 'application/json')).to.equal(undefined);
  });

  it('serialises an unmarked body every time, as a string', () => {
    const body = { n: 1 };
    expect(encodeJson(body, 'getJumpbar', 200, 'application/json')).to.equal('{"n":1}');
    expect(reusedEncoding(body, 'getJumpbar', 200, 'application/json')).to.equal(undefined);
  });
});
