import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { klsVariant, startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';

describe('POST|GET /api/refresh in local mode', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers skipped with a reason, by POST with a JSON body, POST without body and GET', async () => {
    for (const res of [
      await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'kantonsspital' } }),
      await call(server.url, '/api/refresh', { method: 'POST' }),
      await call(server.url, '/api/refresh?scope=pack&pack=ost'),
    ]) {
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('skipped');
      expect(res.body.reason).to.match(/KLS store mode/);
    }
  });

  it('answers 400 when the scope names no pack or tenant, 404 for an unknown one', async () => {
    expectProblem(await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'pack' } }), 400);
    expectProblem(await call(server.url, '/api/refresh?scope=tenant'), 400);
    expectProblem(await call(server.url, '/api/refresh?scope=pack&pack=nord'), 404);
    expectProblem(await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'nowhere' } }), 404);
    expectProblem(await call(server.url, '/api/refresh?scope=tenant&tenant=rehaklinik'), 409);
    expectProblem(await call(server.url, '/api/refresh?scope=everything'), 400);
  });
});

describe('POST|GET /api/refresh in KLS store mode', () => {
  let store: TestObjectStore;
  let server: TestServer;
  const generation = async (tenant: string): Promise<number> => (await call(server.url, `/api/db-status/${tenant}`)).body.generation;
  const tenantStatus = async (tenant: string) =>
    (await call(server.url, '/api/store-status')).body.tenants.find((t: { compositeId: string }) => t.compositeId === tenant);

  beforeEach(async () => {
    store = await startObjectStore();
    await store.uploadDemo();
    server = await startStoreModeServer(store);
    await waitForSync(server);
    store.resetTraffic();
  });
  afterEach(async () => {
    await server.close();
    await store.close();
  });

  it('skips objects whose ETag is unchanged: every scope completes with 0 object GETs, 0 bytes and no swap', async () => {
    const answers = [
      await call(server.url, '/api/refresh?wait=true'),
      await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'pack', pack: 'west', wait: true } }),
      await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'kantonsspital', wait: true } }),
    ];
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200]);
    expect(answers[0]!.body).to.deep.equal({ status: 'completed', scope: 'all', invalidated: 4, tenants: 4, ready: 4 });
    expect(answers[1]!.body).to.deep.equal({ status: 'completed', scope: 'pack', pack: 'west', invalidated: 2, tenants: 2, ready: 2 });
    expect(answers[2]!.body).to.deep.equal({ status: 'completed', scope: 'tenant', tenant: 'ost.kantonsspital', invalidated: 1, tenants: 1, ready: 1 });
    expect(store.traffic).to.deep.include({ objectGets: 0, bytes: 0, lists: 3 });
    for (const tenant of ['ost.kantonsspital', 'ost.rehaklinik', 'west.hopital-cantonal', 'west.rehaklinik']) expect(await generation(tenant)).to.equal(1);
  });

  it('scope tenant: downloads the changed object, swaps it (generation + 1, new mtime) and leaves the others alone', async () => {
    const before = (await call(server.url, '/api/db-status/ost.kantonsspital')).body;
    const variant = klsVariant('ost', 'kantonsspital', 'Kantonsspital Ost (refreshed)');
    await store.put('ost/kantonsspital/kls.sqlite', variant);
    // mtime is the object's Last-Modified, in whole seconds: the new object is dated a second later
    store.setLastModified('ost/kantonsspital/kls.sqlite', new Date(Date.parse(before.mtime) + 1000));
    await store.put('west/rehaklinik/kls.sqlite', klsVariant('west', 'rehaklinik', 'changed but not in scope'));
    store.resetTraffic();
    const res = await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'ost.kantonsspital', wait: true } });
    expect(res.body).to.deep.equal({ status: 'completed', scope: 'tenant', tenant: 'ost.kantonsspital', invalidated: 1, tenants: 1, ready: 1 });
    expect(store.traffic.objectGets).to.equal(1);
    expect(store.traffic.bytes).to.equal(fs.statSync(variant).size);
    const after = (await call(server.url, '/api/db-status/ost.kantonsspital')).body;
    expect(after.generation).to.equal(before.generation + 1);
    expect(Date.parse(after.mtime)).to.be.greaterThan(Date.parse(before.mtime));
    expect(after.mtime).to.equal((await store.client.statObject(store.bucket, 'ost/kantonsspital/kls.sqlite')).lastModified.toISOString());
    expect((await tenantStatus('ost.kantonsspital')).displayName).to.equal('Kantonsspital Ost (refreshed)');
    expect(await generation('west.rehaklinik')).to.equal(1);
  });

  it('scope pack: downloads only the changed objects of that pack', async () => {
    await store.put('west/hopital-cantonal/kls.sqlite', klsVariant('west', 'hopital-cantonal', 'Hôpital (v2)'));
    await store.put('ost/rehaklinik/kls.sqlite', klsVariant('ost', 'rehaklinik', 'other pack'));
    store.resetTraffic();
    const res = await call(server.url, '/api/refresh?scope=pack&pack=west&wait=true');
    expect(res.body).to.deep.equal({ status: 'completed', scope: 'pack', pack: 'west', invalidated: 2, tenants: 2, ready: 2 });
    expect(store.traffic.objectGets).to.equal(1);
    expect(await generation('west.hopital-cantonal')).to.equal(2);
    expect(await generation('west.rehaklinik')).to.equal(1);
    expect(await generation('ost.rehaklinik')).to.equal(1);
  });

  it('answers at once with status started; the new generation shows in db-status when the download is done', async () => {
    await store.put('ost/rehaklinik/kls.sqlite', klsVariant('ost', 'rehaklinik', 'Rehaklinik (v2)'));
    store.slowDownloads(40);
    const res = await call(server.url, '/api/refresh', { method: 'POST' });
    expect(res.body).to.deep.equal({ status: 'started', scope: 'all', invalidated: 4, tenants: 4, ready: 4 });
    const during = await waitUntil(async () => {
      const tenant = await tenantStatus('ost.rehaklinik');
      return tenant.status === 'downloading' ? tenant : undefined;
    });
    expect(during.generation).to.equal(1);
    expect((await call(server.url, '/api/jumpbar?mode=summary&tenant=ost.rehaklinik')).status).to.equal(200);
    await waitUntil(async () => (await generation('ost.rehaklinik')) === 2, 15_000, 'generation 2');
    expect((await tenantStatus('ost.rehaklinik')).status).to.equal('ready');
  });

  it('shares one download between two refreshes of one tenant at once', async () => {
    await store.put('ost/kantonsspital/kls.sqlite', klsVariant('ost', 'kantonsspital', 'shared'));
    store.slowDownloads(30);
    store.resetTraffic();
    const [a, b] = await Promise.all([
      call(server.url, '/api/refresh?scope=tenant&tenant=ost.kantonsspital&wait=true'),
      call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'kantonsspital', wait: true } }),
    ]);
    expect(a.body.status).to.equal('completed');
    expect(b.body.status).to.equal('completed');
    expect(store.traffic.objectGets).to.equal(1);
    expect(await generation('ost.kantonsspital')).to.equal(2);
  });

  it('keeps the previous file in service when the new object is not SQLite: status error with a message', async () => {
    await store.putBuffer('west/rehaklinik/kls.sqlite', Buffer.from('this is not a database\n'.repeat(100)));
    const res = await call(server.url, '/api/refresh?scope=tenant&tenant=west.rehaklinik&wait=true');
    expect(res.body).to.include({ status: 'completed', tenants: 1, ready: 0 });
    const tenant = await tenantStatus('west.rehaklinik');
    expect(tenant).to.include({ status: 'error', generation: 1 });
    expect(tenant.error).to.match(/kls\.sqlite: not an SQLite database/);
    expect((await call(server.url, '/api/jumpbar?mode=summary&tenant=west.rehaklinik')).status).to.equal(200);
    const health = await call(server.url, '/health');
    expect(health.body).to.include({ status: 'degraded', errors: 1 });
    expect(fs.readdirSync(path.join(server.dataDir, 'kls', 'west', 'rehaklinik')).filter((n) => n.includes('.download-'))).to.deep.equal([]);
    await store.put('west/rehaklinik/kls.sqlite', klsVariant('west', 'rehaklinik', 'repaired'));
    await call(server.url, '/api/refresh?scope=tenant&tenant=west.rehaklinik&wait=true');
    expect(await tenantStatus('west.rehaklinik')).to.include({ status: 'ready', error: null, generation: 2, displayName: 'repaired' });
  });

  it('drops tenants that vanished from the bucket, with their cached files', async () => {
    // the search index builds queued at start lease their tenants; a tenant's files wait for its leases to end
    await server.deps.searchIndexes.buildsSettled();
    await store.remove('ost/rehaklinik/kls.sqlite');
    const res = await call(server.url, '/api/refresh?wait=true');
    expect(res.body).to.deep.equal({ status: 'completed', scope: 'all', invalidated: 4, tenants: 3, ready: 3 });
    const status = (await call(server.url, '/api/store-status')).body;
    expect(status.tenants.map((t: { compositeId: string }) => t.compositeId)).to.not.include('ost.rehaklinik');
    expectProblem(await call(server.url, '/api/db-status/ost.rehaklinik'), 404);
    // the slug is no longer ambiguous
    expect((await call(server.url, '/api/db-status/rehaklinik')).status).to.equal(200);
    expect(fs.existsSync(path.join(server.dataDir, 'kls', 'ost', 'rehaklinik'))).to.equal(false);
  });

  it('downloads sis.sqlite beside kls.sqlite (hasSis) without a new generation, and removes it when it vanishes', async () => {
    await store.put('ost/kantonsspital/sis.sqlite', klsVariant('ost', 'kantonsspital', 'sis'));
    await call(server.url, '/api/refresh?scope=tenant&tenant=ost.kantonsspital&wait=true');
    expect(await tenantStatus('ost.kantonsspital')).to.include({ hasSis: true, generation: 1, status: 'ready' });
    expect(fs.existsSync(path.join(server.dataDir, 'kls', 'ost', 'kantonsspital', 'sis.sqlite'))).to.equal(true);
    await store.remove('ost/kantonsspital/sis.sqlite');
    const res = await call(server.url, '/api/refresh?scope=tenant&tenant=ost.kantonsspital&wait=true');
    expect(res.body.invalidated).to.equal(2);
    expect(await tenantStatus('ost.kantonsspital')).to.include({ hasSis: false, generation: 1 });
  });

  it('answers 400 without the scope name, 404 for an unknown pack or tenant, 409 for an ambiguous slug', async () => {
    expectProblem(await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'pack' } }), 400);
    expectProblem(await call(server.url, '/api/refresh?scope=tenant'), 400);
    expectProblem(await call(server.url, '/api/refresh?scope=pack&pack=nord'), 404);
    expectProblem(await call(server.url, '/api/refresh?scope=tenant&tenant=ost.nowhere'), 404);
    expectProblem(await call(server.url, '/api/refresh?scope=tenant&tenant=rehaklinik'), 409);
    expect(store.traffic.lists).to.equal(0);
  });

  it('does not fetch unchanged files again after a restart over the same cache', async () => {
    const cache = tempDir('ads-store-cache-');
    try {
      const first = await startStoreModeServer(store, { dataDir: cache.dir });
      await waitForSync(first);
      await first.close();
      store.resetTraffic();
      const second = await startStoreModeServer(store, { dataDir: cache.dir });
      try {
        // the cached files are served before the store answers
        expect((await call(second.url, '/api/jumpbar?mode=summary&tenant=ost.kantonsspital')).status).to.equal(200);
        const status = await waitForSync(second);
        expect(status.ready).to.equal(true);
        expect(store.traffic.objectGets).to.equal(0);
        expect(status.tenants.map((t: { generation: number }) => t.generation)).to.deep.equal([1, 1, 1, 1]);
      } finally {
        await second.close();
      }
    } finally {
      cache.remove();
    }
  });
});
