import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { loadContractDocument } from '../../src/contract-document.js';
import { createContractBackend } from '../../src/http/contract-index.js';
import { call, expectProblem } from '../helpers/http.js';
import { KLS_COLUMNS, buildKls, dataDirWith, searchRow } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitUntil } from '../helpers/store-mode.js';

const ARRAYS = ['probes', 'hypotheses', 'taxonomies', 'entities', 'smebits', 'bitbundles', 'people', 'dimensions', 'glossary'];

const LAB_ITEMS = [
  searchRow('glossary', 'g_fallkosten', 'Fallkosten'),
  searchRow('glossary', 'g_kostenstelle', 'Kostenstelle'),
  searchRow('glossary', 'g_kosten', 'Kosten'),
  searchRow('glossary', 'g_cout', 'Total cost', 'Gesamtkosten', 'Coût total'),
  searchRow('glossary', 'g_strasse', 'Straße'),
  searchRow('glossary', 'g_de_only', null, 'Nur Deutsch', null, { description_de: 'Beschreibung', meta: '{"source":"lab"}' }),
  searchRow('glossary', 'g_en_only', 'Only English', null, null, { meta: 'not json' }),
  searchRow('other', 'x_kosten', 'Kosten elsewhere'),
  ...Array.from({ length: 30 }, (_, i) => searchRow('entity', `widget_${String(i + 1).padStart(2, '0')}`, `Widget ${String(i + 1).padStart(2, '0')}`)),
];

describe('GET /api/jumpbar?mode=search', () => {
  let server: TestServer;
  let data: ReturnType<typeof dataDirWith>;
  const search = (tenant: string, q: string) => call(server.url, `/api/jumpbar?mode=search&tenant=${tenant}&q=${encodeURIComponent(q)}`);
  const ids = (body: any, key: string): string[] => body[key].map((item: { id: string }) => item.id);

  before(async () => {
    data = dataDirWith({
      tenants: {
        'lab.searchlab': { search_items: { columns: KLS_COLUMNS.search_items, rows: LAB_ITEMS } },
        'lab.metaonly': {},
      },
    });
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  it('finds the demo glossary item for "fallpauschale" with names, description and meta', async () => {
    const res = await search('kantonsspital', 'fallpauschale');
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body)).to.have.members(ARRAYS);
    expect(res.body.glossary[0]).to.deep.include({
      id: 'glossary_fallpauschale',
      kind: 'glossary',
      name: { en: 'Case flat rate', de: 'Fallpauschale', fr: 'Forfait par cas' },
      meta: { source: 'SwissDRG' },
    });
    expect(res.body.glossary[0].description.en).to.match(/^SwissDRG payment/);
  });

  it('matches accent- and case-insensitively ("cout" finds "Coût", "COÛT" too)', async () => {
    for (const q of ['cout', 'COÛT', 'Coût']) {
      const res = await search('kantonsspital', q);
      expect(res.status).to.equal(200);
      const names = Object.values(res.body).flatMap((items: any) => items.map((item: any) => item.name.fr));
      expect(names, q).to.include('Coût relatif');
    }
    expect(ids((await search('lab.searchlab', 'strasse')).body, 'glossary')).to.deep.equal(['g_strasse']);
  });

  it('ranks exact matches first, then prefixes, then other substrings', async () => {
    const res = await search('lab.searchlab', 'kosten');
    // Gesamtkosten (de of "Total cost") and Fallkosten are substring matches, ordered by their folded English name
    expect(ids(res.body, 'glossary')).to.deep.equal(['g_kosten', 'g_kostenstelle', 'g_fallkosten', 'g_cout']);
    expect(ids(res.body, 'entities')).to.deep.equal([]);
  });

  it('serves one- and two-character queries as name-prefix searches', async () => {
    expect(ids((await search('lab.searchlab', 'k')).body, 'glossary')).to.deep.equal(['g_kosten', 'g_kostenstelle']);
    expect(ids((await search('lab.searchlab', 'KO')).body, 'glossary')).to.deep.equal(['g_kosten', 'g_kostenstelle']);
    expect(ids((await search('lab.searchlab', 'st')).body, 'glossary')).to.deep.equal(['g_strasse']);
  });

  it('returns at most 10 items per kind, in name order', async () => {
    const res = await search('lab.searchlab', 'widget');
    expect(ids(res.body, 'entities')).to.deep.equal(Array.from({ length: 10 }, (_, i) => `widget_${String(i + 1).padStart(2, '0')}`));
  });

  it('answers a repeated query (any case or accents) from the result cache, kept from its second search, with the same body', async () => {
    const cache = server.deps.searchIndexes.cache;
    const first = await search('lab.searchlab', 'Kostenstellé');
    const second = await search('lab.searchlab', '  KOSTENSTELLE ');
    const hits = cache.hits;
    const third = await search('lab.searchlab', 'kostenstelle');
    expect(first.status).to.equal(200);
    expect(second.body).to.deep.equal(first.body);
    expect(third.body).to.deep.equal(first.body);
    expect(Object.values(first.body).flat()).to.not.deep.equal([]);
    expect(cache.hits, 'the third search answered from the cache').to.equal(hits + 1);
  });

  it('fills NULL language variants from English, drops meta that is not a JSON object, ignores unknown kinds', async () => {
    const deOnly = await search('lab.searchlab', 'deutsch');
    expect(deOnly.body.glossary).to.deep.equal([
      {
        id: 'g_de_only',
        kind: 'glossary',
        name: { en: 'Nur Deutsch', de: 'Nur Deutsch', fr: 'Nur Deutsch' },
        description: { en: 'Beschreibung', de: 'Beschreibung', fr: 'Beschreibung' },
        meta: { source: 'lab' },
      },
    ]);
    const enOnly = await search('lab.searchlab', 'only');
    expect(enOnly.body.glossary).to.deep.equal([{ id: 'g_en_only', kind: 'glossary', name: { en: 'Only English', de: 'Only English', fr: 'Only English' } }]);
    const all = Object.values((await search('lab.searchlab', 'elsewhere')).body).flat();
    expect(all).to.deep.equal([]);
  });

  it('answers bodies that keep the contract (the server checks each hit when it builds the index, not per response)', async () => {
    const api = await createContractBackend(loadContractDocument(process.cwd()).document);
    const bodies = [];
    for (const [tenant, q] of [['kantonsspital', 'cost'], ['kantonsspital', 'fallpauschale'], ['kantonsspital', 'a'], ['lab.searchlab', 'only'], ['lab.searchlab', 'deutsch'], ['lab.searchlab', 'widget'], ['lab.metaonly', 'x']]) {
      const res = await search(tenant as string, q as string);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json');
      bodies.push(res.body);
    }
    for (const body of bodies) expect(api.validateResponse(body, 'getJumpbar', 200).errors ?? []).to.deep.equal([]);
    // the check can fail: a hit without its name does not pass
    const broken = structuredClone(bodies[0]);
    delete broken.glossary[0].name;
    expect(api.validateResponse(broken, 'getJumpbar', 200).errors ?? []).to.not.deep.equal([]);
  });

  it('answers nine empty arrays for a tenant file without search_items', async () => {
    const res = await search('lab.metaonly', 'anything');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(Object.fromEntries(ARRAYS.map((key) => [key, []])));
  });

  it('keeps its index in a sidecar file beside the tenant file, never inside it', async () => {
    await search('lab.searchlab', 'kosten');
    const file = data.klsFile('lab.searchlab');
    expect(fs.existsSync(path.join(path.dirname(file), 'search-index.g1.sqlite'))).to.equal(true);
    const db = new Database(file, { readonly: true });
    try {
      const tables = (db.prepare('SELECT name FROM sqlite_master').all() as { name: string }[]).map((row) => row.name);
      expect(tables.filter((name) => !['meta', 'search_items'].includes(name) && !name.startsWith('sqlite_autoindex'))).to.deep.equal([]);
    } finally {
      db.close();
    }
  });

  it('rebuilds the index after the tenant file is swapped (no cached results of the old generation) and deletes the old one', async () => {
    const file = data.klsFile('lab.searchlab');
    expect(ids((await search('lab.searchlab', 'kosten')).body, 'glossary')).to.include('g_kosten');
    buildKls(file, 'searchlab', { search_items: { columns: KLS_COLUMNS.search_items, rows: [searchRow('person', 'p_new', 'Neue Kostenträgerin')] } });
    const status = await call(server.url, '/api/db-status/lab.searchlab');
    expect(status.body.generation).to.equal(2);
    const res = await search('lab.searchlab', 'kosten');
    expect(ids(res.body, 'glossary')).to.deep.equal([]);
    expect(ids(res.body, 'people')).to.deep.equal(['p_new']);
    const sidecars = fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith('search-index.'));
    expect(sidecars).to.deep.equal(['search-index.g2.sqlite']);
  });

  it('builds the index of each file put in service before its first search, and again after a swap', async () => {
    const own = dataDirWith({ tenants: { 'lab.ahead': { search_items: { columns: KLS_COLUMNS.search_items, rows: LAB_ITEMS } } } });
    const file = own.klsFile('lab.ahead');
    const sidecars = () => fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith('search-index.'));
    const started = await startTestServer({ dataDir: own.dir });
    try {
      await waitUntil(() => sidecars().includes('search-index.g1.sqlite'), 15_000, 'the index of generation 1 without a search');
      buildKls(file, 'ahead', { search_items: { columns: KLS_COLUMNS.search_items, rows: [searchRow('person', 'p_ahead', 'Vorab Gebaut')] } });
      expect((await call(started.url, '/api/db-status/lab.ahead')).body.generation).to.equal(2);
      await waitUntil(() => sidecars().join() === 'search-index.g2.sqlite', 15_000, 'the index of generation 2 without a search');
      const res = await call(started.url, '/api/jumpbar?tenant=lab.ahead&q=vorab');
      expect(res.body.people.map((item: { id: string }) => item.id)).to.deep.equal(['p_ahead']);
    } finally {
      await started.close();
      own.remove();
    }
  });

  it('reuses a sidecar built from the same file after a restart and rebuilds one that is not', async () => {
    const own = dataDirWith({ tenants: { 'lab.restart': { search_items: { columns: KLS_COLUMNS.search_items, rows: LAB_ITEMS } } } });
    const sidecar = path.join(path.dirname(own.klsFile('lab.restart')), 'search-index.g1.sqlite');
    const foreign = path.join(path.dirname(own.klsFile('ost.kantonsspital')), 'search-index.g1.sqlite');
    fs.writeFileSync(foreign, 'left over from another file');
    try {
      const first = await startTestServer({ dataDir: own.dir });
      await call(first.url, '/api/jumpbar?tenant=lab.restart&q=kosten');
      await first.close();
      const inode = fs.statSync(sidecar).ino;
      const second = await startTestServer({ dataDir: own.dir });
      try {
        expect(ids((await call(second.url, '/api/jumpbar?tenant=lab.restart&q=kosten')).body, 'glossary')).to.include('g_kosten');
        expect(fs.statSync(sidecar).ino).to.equal(inode);
        expect(ids((await call(second.url, '/api/jumpbar?tenant=kantonsspital&q=fallpauschale')).body, 'glossary')).to.deep.equal(['glossary_fallpauschale']);
        expect(fs.statSync(foreign).size).to.be.greaterThan(4096);
      } finally {
        await second.close();
      }
    } finally {
      own.remove();
    }
  });

  it('answers 400 when q is only white space or holds a NUL, 404 and 409 for unknown and ambiguous tenants', async () => {
    const blank = await search('kantonsspital', '   ');
    expectProblem(blank, 400);
    expect(blank.body.errors[0]).to.include({ in: 'query', name: 'q' });
    const nul = await search('kantonsspital', 'co\u0000st');
    expectProblem(nul, 400);
    expect(nul.body.errors[0]).to.include({ in: 'query', name: 'q', message: 'must not contain U+0000 (NUL)' });
    expectProblem(await search('nowhere', 'cost'), 404);
    expectProblem(await search('rehaklinik', 'cost'), 409);
  });
});
