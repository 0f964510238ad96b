import { expect } from 'chai';
import fs from 'node:fs';
import { call } from '../helpers/http.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
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
});
