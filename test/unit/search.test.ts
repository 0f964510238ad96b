import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { foldText } from '../../src/search/fold.js';
import { INDEX_FORMAT, buildSearchIndex } from '../../src/search/index-builder.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { contractSearchHitCheck } from '../helpers/contract.js';
import { KLS_COLUMNS, buildKls, searchRow } from '../helpers/kls-builder.js';
import { tempDir } from '../helpers/server.js';

describe('search index', () => {
  it('foldText removes case, accents and ligatures and collapses white space', () => {
    expect(foldText('Coût')).to.equal('cout');
    expect(foldText('  FALLPAUSCHALE ')).to.equal('fallpauschale');
    expect(foldText('Straße')).to.equal('strasse');
    expect(foldText('Œsophagite\tet  gastro-entérite')).to.equal('oesophagite et gastro-enterite');
    expect(foldText('Zürcher')).to.equal('zurcher');
  });

  it('builds a sidecar from a KLS, and searches it by tier', async () => {
    const { dir, remove } = tempDir('ads-search-unit-');
    try {
      const kls = path.join(dir, 'kls.sqlite');
      buildKls(kls, 'unit', {
        search_items: {
          columns: KLS_COLUMNS.search_items,
          rows: [searchRow('probe', 'probe_b', 'Überstunden'), searchRow('probe', 'probe_a', 'Stunden "quoted"'), searchRow('person', 'p1', 'Hans Stunder')],
        },
      });
      const source = new Database(kls, { readonly: true });
      const target = path.join(dir, 'search-index.g1.sqlite');
      const checkHit = await contractSearchHitCheck();
      await buildSearchIndex(source, target, { fingerprint: 'f1', checkHit });
      source.close();
      expect(fs.readdirSync(dir).sort()).to.deep.equal(['kls.sqlite', 'search-index.g1.sqlite']);
      expect(SearchIndex.readInfo(target)).to.include({ format: INDEX_FORMAT, fingerprint: 'f1', items: '3', contract: checkHit.contract });
      const index = SearchIndex.open(target, 1);
      try {
        const search = (q: string) => index.search(q).parse();
        const results = search('stunde');
        expect(results.probes.map((hit) => hit.id)).to.deep.equal(['probe_a', 'probe_b']);
        expect(results.people.map((hit) => hit.id)).to.deep.equal(['p1']);
        expect(search('"quoted"').probes.map((hit) => hit.id)).to.deep.equal(['probe_a']);
        expect(search('ub').probes.map((hit) => hit.id)).to.deep.equal(['probe_b']);
        expect(search('   ').probes).to.deep.equal([]);
      } finally {
        index.close();
      }
    } finally {
      remove();
    }
  });
});
