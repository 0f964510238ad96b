import { expect } from 'chai';
import fs from 'node:fs';
import { call } from '../helpers/http.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { demoKlsFile, startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { bytesOnDisk } from '../helpers/store-cache.js';
import type { TestServer } from '../helpers/server.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';

const TENANT = 'ost.kantonsspital';
const LIMIT_MS = 1000;
const DEADLINES = { STORE_CONNECT_TIMEOUT_MS: String(LIMIT_MS), STORE_FIRST_BYTE_TIMEOUT_MS: String(LIMIT_MS), STORE_IDLE_TIMEOUT_MS: String(LIMIT_MS) };

describe('KLS store mode, bounded cache: the files of a vanished tenant that a lease still reads', function () {
  this.timeout(60_000);
  let store: TestObjectStore;
  let server: TestServer;
  beforeEach(async () => {
    store = await startObjectStore();
    await store.uploadDemo();
    server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100', SEARCH_THREAD: 'off' } });
    await waitForSync(server);
  });
  afterEach(async () => {
    await server.close();
    await store.close();
  });

  it('stay counted and are never evicted (which would only drop their count) until the store deletes them', async () => {
    expect((await call(server.url, `/api/reports/${TENANT}/monthly_controlling_2026_10`)).status).to.equal(200);
    await server.deps.searchIndexes.buildsSettled();
    const cache = server.deps.store!.cache!;
    const entry = server.deps.tenants.get(TENANT)!;
    const lease = await server.deps.tenants.lease(entry);
    await store.remove('ost/kantonsspital/kls.sqlite');
    expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
    expect(server.deps.tenants.get(TENANT)).to.equal(undefined);
    expect(fs.existsSync(entry.klsPath)).to.equal(true);
    const counted = cache.budget.chargeOf(TENANT);
    expect(counted).to.be.greaterThan(fs.statSync(entry.klsPath).size - 1);
    // the eviction loop asks canEvict of every counted tenant: a leftover must not go (its files stay on disk)
    expect(cache.canEvict(TENANT)).to.equal(false);
    lease.release();
    expect(cache.canEvict(TENANT)).to.equal(false);
    expect(cache.budget.chargeOf(TENANT)).to.equal(counted);
    // the lease was a read again: the tenant moved to the protected segment, whose index build leases it too
    await server.deps.searchIndexes.buildsSettled();
    // the next complete listing deletes the files and their count together
    expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
    expect(fs.existsSync(entry.dir)).to.equal(false);
    expect(cache.budget.chargeOf(TENANT)).to.equal(undefined);
  });
  it('back in the store while its old files are a leftover: the new download keeps its folder, the sweep deletes nothing of it', async () => {
    expect((await call(server.url, `/api/reports/${TENANT}/monthly_controlling_2026_10`)).status).to.equal(200);
    await server.deps.searchIndexes.buildsSettled();
    const cache = server.deps.store!.cache!;
    const old = server.deps.tenants.get(TENANT)!;
    const lease = await server.deps.tenants.lease(old);
    await store.remove('ost/kantonsspital/kls.sqlite');
    expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
    expect(server.deps.tenants.get(TENANT)).to.equal(undefined);
    await store.put('ost/kantonsspital/kls.sqlite', demoKlsFile('ost', 'kantonsspital'));
    expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
    const back = server.deps.tenants.get(TENANT)!;
    expect(back).to.not.equal(old);
    expect((await call(server.url, `/api/reports/${TENANT}/monthly_controlling_2026_10`)).status).to.equal(200);
    lease.release();
    await server.deps.searchIndexes.buildsSettled();
    // the listing after: the old entry's files are the new one's folder, which stays in service
    expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
    expect(server.deps.tenants.get(TENANT)).to.equal(back);
    expect(fs.existsSync(back.klsPath)).to.equal(true);
    expect((await call(server.url, `/api/reports/${TENANT}/monthly_controlling_2026_10`)).status).to.equal(200);
    expect(cache.budget.chargeOf(TENANT)).to.equal(bytesOnDisk(back.dir));
    expect(cache.canEvict(TENANT)).to.equal(true);
  });
});

describe('KLS store mode: a tenant that vanishes from the store while its download runs', function () {
  this.timeout(60_000);
  let store: TestObjectStore;
  let proxy: FaultProxy;
  beforeEach(async () => {
    store = await startObjectStore();
    await store.uploadDemo();
    proxy = await startFaultProxy(store.endpoint);
  });
  afterEach(async () => {
    await proxy.close();
    await store.close();
  });

  it('leaves the list once that download has ended, within the refresh that saw it gone', async () => {
    const server = await startStoreModeServer(store, {
      env: { S3_ENDPOINT: proxy.endpoint, STORE_CACHE_MAX_MB: '1000', STORE_FETCH_WAIT_MS: '8000', ...DEADLINES },
    });
    try {
      await waitForSync(server);
      proxy.inject({ kind: 'hang' }, /\/ost\/kantonsspital\//);
      const fetching = call(server.url, `/api/reports/${TENANT}/monthly_controlling_2026_10`);
      await waitUntil(() => proxy.faulted.length >= 1, 5000, 'the download held by the store');
      await store.remove('ost/kantonsspital/kls.sqlite');
      const res = await call(server.url, '/api/refresh?wait=true');
      expect(res.body).to.include({ status: 'completed', tenants: 3 });
      expect(server.deps.tenants.get(TENANT)).to.equal(undefined);
      expect((await fetching).status).to.be.oneOf([404, 503]);
    } finally {
      await server.close();
    }
  });
  it('shutdown while refreshes wait for the listing after a running one: close ends within the time limit, no listing starts after it', async () => {
    const server = await startStoreModeServer(store, {
      env: { S3_ENDPOINT: proxy.endpoint, STORE_CACHE_MAX_MB: '1000', ...DEADLINES, STORE_FIRST_BYTE_TIMEOUT_MS: '30000', STORE_IDLE_TIMEOUT_MS: '30000' },
    });
    try {
      await waitForSync(server);
      const kls = server.deps.store!;
      proxy.inject({ kind: 'hang' }, /list-type=2/);
      const first = kls.refresh({ kind: 'all' }, true);
      await waitUntil(() => proxy.faulted.length >= 1, 5000, 'the listing held by the store');
      const waiting = [kls.refresh({ kind: 'all' }, true), kls.refresh({ kind: 'all' }, true)];
      const listings = proxy.requests.filter((line) => /list-type=2/.test(line)).length;
      const asked = performance.now();
      await kls.close();
      expect(performance.now() - asked).to.be.below(5000);
      expect((await first).status).to.equal('completed');
      for (const answer of await Promise.all(waiting)) expect(answer).to.include({ status: 'completed', error: 'the server is shutting down' });
      expect(proxy.requests.filter((line) => /list-type=2/.test(line)).length).to.equal(listings);
      // a refresh asked for after shutdown lists nothing either
      expect(await kls.refresh({ kind: 'all' }, true)).to.include({ status: 'completed', error: 'the server is shutting down' });
      expect(proxy.requests.filter((line) => /list-type=2/.test(line)).length).to.equal(listings);
    } finally {
      await server.close();
    }
  });
});
