import { expect } from 'chai';
import { call } from '../helpers/http.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { REPORT_KEY, tenantVariant } from '../helpers/store-cache.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';
import type { TestServer } from '../helpers/server.js';

const KEY = 'ost/kantonsspital/kls.sqlite';
const report = async (server: TestServer): Promise<string> => (await call(server.url, `/api/reports/ost.kantonsspital/${REPORT_KEY}`)).text;
const cacheOf = async (server: TestServer): Promise<any> => (await call(server.url, '/api/store-status?include_cache=true')).body.cache;

/**
 * Two instances on one PostgreSQL app database and one s3rver store, each with a cache of its own: a refresh sent
 * to one is carried out by both.
 */
describe('POST /api/refresh reaches every instance on one PostgreSQL app database', function () {
  this.timeout(120_000);
  let postgres: TestPostgres;
  let store: TestObjectStore;
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    [postgres, store] = await Promise.all([startPostgres(), startObjectStore()]);
    await store.uploadDemo();
    await store.put(KEY, tenantVariant('ost', 'kantonsspital', 'Kantonsspital v1', 'v1'));
    const appDb = await postgres.createDatabase('refresh');
    // one instance downloads everything, the other has a bounded cache: a refresh reaches both kinds
    a = await startStoreModeServer(store, { env: { APP_DB_URL: appDb } });
    b = await startStoreModeServer(store, { env: { APP_DB_URL: appDb, STORE_CACHE_MAX_MB: '100' } });
    await Promise.all([waitForSync(a), waitForSync(b)]);
    await Promise.all([a, b].map((server) => waitUntil(async () => (await cacheOf(server)).refreshes === 'shared', 15_000, 'the refresh channel')));
    expect(await report(a)).to.include('v1');
    expect(await report(b)).to.include('v1');
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([postgres?.close(), store?.close()]);
  });

  it('carries a refresh sent to one instance out on the other, which then serves the new generation', async () => {
    const before = (await call(b.url, '/api/db-status/ost.kantonsspital')).body.generation;
    await store.put(KEY, tenantVariant('ost', 'kantonsspital', 'Kantonsspital v2', 'v2'));
    const res = await call(a.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'ost.kantonsspital', wait: true } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-refresh-reach')).to.equal('cluster');
    expect(res.body).to.include({ status: 'completed', tenants: 1, ready: 1 });
    expect(await report(a)).to.include('v2');
    // the other instance heard it: no request was sent to it
    await waitUntil(async () => (await call(b.url, '/api/db-status/ost.kantonsspital')).body.generation > before, 15_000, 'the other instance to swap');
    expect(await report(b)).to.include('v2');
    expect((await call(b.url, '/api/store-status')).body.tenants.find((t: any) => t.compositeId === 'ost.kantonsspital').displayName).to.equal('Kantonsspital v2');
  });

  it('catches up once PostgreSQL is back: an instance that could not hear a refresh syncs everything', async () => {
    await postgres.stop();
    try {
      await Promise.all([a, b].map((server) => waitUntil(async () => (await cacheOf(server)).refreshes === 'reconnecting', 15_000, 'the channel to notice')));
      await store.put(KEY, tenantVariant('ost', 'kantonsspital', 'Kantonsspital v3', 'v3'));
      const res = await call(a.url, '/api/refresh?scope=tenant&tenant=ost.kantonsspital&wait=true');
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-refresh-reach')).to.equal('instance');
      expect(await report(a)).to.include('v3');
      expect(await report(b)).to.include('v2');
    } finally {
      await postgres.start();
    }
    await waitUntil(async () => (await cacheOf(b)).refreshes === 'shared', 60_000, 'the channel to listen again');
    await waitUntil(async () => (await report(b)).includes('v3'), 30_000, 'the other instance to catch up');
    // and the new LISTEN connections carry the refreshes sent after the restart, both ways
    await waitUntil(async () => (await cacheOf(a)).refreshes === 'shared', 60_000, 'the first instance to listen again');
    await store.put(KEY, tenantVariant('ost', 'kantonsspital', 'Kantonsspital v4', 'v4'));
    const res = await call(b.url, '/api/refresh?scope=tenant&tenant=ost.kantonsspital&wait=true');
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-refresh-reach')).to.equal('cluster');
    await waitUntil(async () => (await report(a)).includes('v4'), 15_000, 'the refresh to reach the first instance after the restart');
  });
});

describe('POST /api/refresh with a SQLite app database', () => {
  it('reaches this instance only, and says so', async () => {
    const store = await startObjectStore();
    try {
      await store.uploadDemo();
      const server = await startStoreModeServer(store);
      try {
        await waitForSync(server);
        const res = await call(server.url, '/api/refresh', { method: 'POST', json: { wait: true } });
        expect(res.status).to.equal(200);
        expect(res.headers.get('x-refresh-reach')).to.equal('instance');
        expect((await cacheOf(server)).refreshes).to.equal('local');
      } finally {
        await server.close();
      }
    } finally {
      await store.close();
    }
  });
});
