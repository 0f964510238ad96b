import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { bytesOnDisk, fillingDisk, REPORT_KEY, temporaryFiles, tenantVariant } from '../helpers/store-cache.js';
import { startStoreModeServer, waitUntil } from '../helpers/store-mode.js';
import type { TestServer } from '../helpers/server.js';

const MiB = 1024 * 1024;
const TENANTS = ['ost.kantonsspital', 'ost.rehaklinik', 'west.hopital-cantonal', 'west.rehaklinik'];

const storeStatus = async (server: TestServer): Promise<any> => (await call(server.url, '/api/store-status?include_cache=true')).body;
const tenantOf = async (server: TestServer, id: string): Promise<any> => (await storeStatus(server)).tenants.find((t: { compositeId: string }) => t.compositeId === id);
const report = (server: TestServer, id: string) => call(server.url, `/api/reports/${id}/${REPORT_KEY}`);

/** Uploads a variant of each demo tenant whose report names it; returns the marker each report holds. */
async function uploadVariants(store: TestObjectStore, tag: string): Promise<Map<string, string>> {
  const markers = new Map<string, string>();
  for (const id of TENANTS) {
    const [pack, slug] = id.split('.') as [string, string];
    const marker = `${id} ${tag}`;
    await store.put(`${pack}/${slug}/kls.sqlite`, tenantVariant(pack, slug, `${slug} (${tag})`, marker));
    markers.set(id, marker);
  }
  return markers;
}

describe('KLS store mode with a bounded cache (STORE_CACHE_MAX_MB)', function () {
  this.timeout(60_000);
  let store: TestObjectStore;
  let markers: Map<string, string>;
  beforeEach(async () => {
    store = await startObjectStore();
    markers = await uploadVariants(store, 'v1');
    store.resetTraffic();
  });
  afterEach(async () => {
    store.slowDownloads(null);
    await store.close();
  });

  it('is ready after the listing alone, and fetches a tenant on its first use only', async () => {
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100' } });
    try {
      const ready = await waitUntil(async () => {
        const res = await call(server.url, '/health/ready');
        return res.status === 200 ? res : undefined;
      });
      expect(ready.body).to.include({ status: 'ready', mode: 'store' });
      expect(store.traffic.objectGets).to.equal(0);
      const before = await storeStatus(server);
      expect(before).to.deep.include({ initialized: true, ready: true, downloading: false, error: null });
      expect(before.tenants.map((t: any) => [t.compositeId, t.status, t.cache, t.generation])).to.deep.equal(TENANTS.map((id) => [id, 'pending', 'not-fetched', 0]));
      expect(before.cache).to.deep.include({ maxBytes: 100 * MiB, usedBytes: 0, reservedBytes: 0, cachedTenants: 0, evictions: 0, refreshes: 'local' });
      expect(before.cache.instance).to.match(/^[0-9a-f]{8}$/);
      // db-status of a tenant not in the cache: the listed object's time, no download
      const listed = await call(server.url, '/api/db-status/west.rehaklinik');
      expect(listed.status).to.equal(200);
      expect(listed.body.generation).to.equal(0);
      expect(listed.body.mtime).to.equal((await store.client.statObject(store.bucket, 'west/rehaklinik/kls.sqlite')).lastModified.toISOString());
      expect(store.traffic.objectGets).to.equal(0);

      const first = await report(server, 'ost.kantonsspital');
      expect(first.status).to.equal(200);
      expect(first.text).to.include(markers.get('ost.kantonsspital'));
      expect(store.traffic.objectGets).to.equal(1);
      expect((await report(server, 'ost.kantonsspital')).status).to.equal(200);
      expect(store.traffic.objectGets).to.equal(1);
      const metrics = (await call(server.url, '/metrics')).text;
      expect(metrics).to.match(/^store_cache_misses_total 1$/m);
      expect(metrics).to.match(/^store_cache_hits_total 1$/m);
      expect(metrics).to.match(/^store_cache_fetched_bytes_total [1-9]\d+$/m);
      await server.deps.searchIndexes.buildsSettled();
      const after = await storeStatus(server);
      expect(after.tenants.find((t: any) => t.compositeId === 'ost.kantonsspital')).to.deep.include({ status: 'ready', cache: 'cached', generation: 1 });
      expect(after.cache.cachedTenants).to.equal(1);
      expect(after.cache.usedBytes).to.equal(bytesOnDisk(server.deps.config.klsDir));
      // without include_cache the answer is as before the cache existed
      const plain = (await call(server.url, '/api/store-status')).body;
      expect(plain).not.to.have.property('cache');
      expect(plain.tenants[0]).not.to.have.property('cache');
    } finally {
      await server.close();
    }
  });

  it('fetches the tenants and packs of STORE_WARM at start, in order, and nothing else', async () => {
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100', STORE_WARM: 'west.*,ost.rehaklinik,nord.x' } });
    try {
      const warm = ['ost.rehaklinik', 'west.hopital-cantonal', 'west.rehaklinik'];
      await waitUntil(async () => {
        const status = await storeStatus(server);
        return status.tenants.filter((t: any) => t.cache === 'cached').length === warm.length;
      }, 30_000, 'the warm tenants');
      const status = await storeStatus(server);
      expect(status.tenants.filter((t: any) => t.cache === 'cached').map((t: any) => t.compositeId)).to.deep.equal(warm);
      expect(store.traffic.objectGets).to.equal(warm.length);
      expect((await report(server, 'west.rehaklinik')).text).to.include(markers.get('west.rehaklinik'));
      expect(store.traffic.objectGets).to.equal(warm.length);
    } finally {
      await server.close();
    }
  });

  it('syncs the cached tenants with the store every STORE_POLL_S seconds, without a refresh', async () => {
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100', STORE_POLL_S: '1' } });
    try {
      await waitUntil(async () => (await storeStatus(server)).initialized === true);
      expect((await report(server, 'ost.kantonsspital')).text).to.include(markers.get('ost.kantonsspital'));
      await store.put('ost/kantonsspital/kls.sqlite', tenantVariant('ost', 'kantonsspital', 'polled', 'ost.kantonsspital polled'));
      await waitUntil(async () => (await tenantOf(server, 'ost.kantonsspital')).generation === 2, 30_000, 'the poll to swap the file');
      expect((await report(server, 'ost.kantonsspital')).text).to.include('ost.kantonsspital polled');
    } finally {
      await server.close();
    }
  });

  it('evicts the least recently used idle tenant when a fetch needs room, and stays within its bound on disk', async () => {
    // two tenant files of 0.7 MB fit, not three (a tenant read once gets no search index ahead of its first search)
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '2' } });
    const klsDir = server.deps.config.klsDir;
    let largest = 0;
    try {
      await waitUntil(async () => (await storeStatus(server)).initialized === true);
      for (const id of [...TENANTS, TENANTS[0]!]) {
        const res = await report(server, id);
        expect(res.status, `${id}: ${res.text}`).to.equal(200);
        expect(res.text).to.include(markers.get(id));
        await server.deps.searchIndexes.buildsSettled();
        largest = Math.max(largest, bytesOnDisk(klsDir));
      }
      expect(largest).to.be.at.most(2 * MiB);
      const status = await storeStatus(server);
      expect(status.cache.evictions).to.be.greaterThan(0);
      expect(status.cache.usedBytes).to.equal(bytesOnDisk(klsDir));
      expect(status.cache.usedBytes + status.cache.reservedBytes).to.be.at.most(2 * MiB);
      const states = new Map(status.tenants.map((t: any) => [t.compositeId, t.cache]));
      // the first tenant came back: fetched again, a new generation
      expect(states.get(TENANTS[0])).to.equal('cached');
      expect(status.tenants.find((t: any) => t.compositeId === TENANTS[0]).generation).to.equal(2);
      expect([...states.values()]).to.include('evicted');
      for (const [id, state] of states) {
        if (state === 'evicted') expect(fs.existsSync(path.join(klsDir, ...(id as string).split('.')))).to.equal(false);
      }
      const metrics = (await call(server.url, '/metrics')).text;
      expect(metrics).to.match(/^store_cache_evictions_total [1-9]/m);
      expect(metrics).to.match(/^store_cache_misses_total 5$/m);
      expect(metrics).to.match(/^store_cache_fetch_duration_seconds_count 5$/m);
      expect(metrics).to.match(/^store_cache_bytes\{kind="max"\} 2097152$/m);
    } finally {
      await server.close();
    }
  });

  it('shares one download between requests for a tenant being fetched', async () => {
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100' } });
    try {
      await waitUntil(async () => (await storeStatus(server)).initialized === true);
      // about 1.2 s for the file: the six requests, sent together, all come while it downloads
      store.slowDownloads(100);
      const answers = await Promise.all(Array.from({ length: 6 }, () => report(server, 'west.hopital-cantonal')));
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
      expect(store.traffic.objectGets).to.equal(1);
      expect((await call(server.url, '/metrics')).text).to.match(/^store_cache_misses_total 6$/m);
    } finally {
      await server.close();
    }
  });

  it('answers 503 with Retry-After when the fetch takes longer than STORE_FETCH_WAIT_MS, and serves the tenant once it is in', async () => {
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100', STORE_FETCH_WAIT_MS: '0' } });
    try {
      await waitUntil(async () => (await storeStatus(server)).initialized === true);
      store.slowDownloads(30);
      const waited = await report(server, 'ost.rehaklinik');
      expectProblem(waited, 503);
      expect(waited.body.type).to.match(/tenant-unavailable$/);
      expect(Number(waited.headers.get('retry-after'))).to.be.within(1, 60);
      expect((await tenantOf(server, 'ost.rehaklinik')).cache).to.equal('fetching');
      await waitUntil(async () => (await tenantOf(server, 'ost.rehaklinik')).cache === 'cached', 30_000, 'the fetch to end');
      const served = await report(server, 'ost.rehaklinik');
      expect(served.status).to.equal(200);
      expect(served.text).to.include(markers.get('ost.rehaklinik'));
      expect(store.traffic.objectGets).to.equal(1);
    } finally {
      await server.close();
    }
  });

  it('refuses a tenant larger than the whole cache with a clear 503 and no Retry-After, and never downloads it', async () => {
    await store.put('ost/kantonsspital/kls.sqlite', tenantVariant('ost', 'kantonsspital', 'Too large', 'too large', 2 * MiB));
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '2' } });
    try {
      await waitUntil(async () => (await storeStatus(server)).initialized === true);
      store.resetTraffic();
      for (let i = 0; i < 3; i++) {
        const refused = await report(server, 'ost.kantonsspital');
        expectProblem(refused, 503);
        expect(refused.body.type).to.match(/tenant-too-large$/);
        expect(refused.body.detail).to.match(/larger than the whole cache \(STORE_CACHE_MAX_MB=2\)/);
        expect(refused.headers.get('retry-after')).to.equal(null);
      }
      expect(store.traffic.objectGets).to.equal(0);
      const tenant = await tenantOf(server, 'ost.kantonsspital');
      expect(tenant).to.deep.include({ status: 'error', cache: 'too-large' });
      expect(tenant.error).to.match(/larger than the whole cache/);
      // the others fit and are served
      expect((await report(server, 'ost.rehaklinik')).status).to.equal(200);
    } finally {
      await server.close();
    }
  });

  it('answers 503 while the store is away during a fetch, keeps the cache consistent, and fetches on the next request', async () => {
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100' } });
    const klsDir = server.deps.config.klsDir;
    try {
      await waitUntil(async () => (await storeStatus(server)).initialized === true);
      await store.stop();
      const away = await report(server, 'west.rehaklinik');
      expectProblem(away, 503);
      expect(away.body.type).to.match(/tenant-unavailable$/);
      expect(Number(away.headers.get('retry-after'))).to.be.greaterThan(0);
      const status = await storeStatus(server);
      expect(status.tenants.find((t: any) => t.compositeId === 'west.rehaklinik')).to.deep.include({ status: 'error', cache: 'not-fetched' });
      expect(temporaryFiles(klsDir)).to.deep.equal([]);
      expect(status.cache).to.deep.include({ usedBytes: bytesOnDisk(klsDir), reservedBytes: 0 });
      await store.restart();
      const back = await report(server, 'west.rehaklinik');
      expect(back.status).to.equal(200);
      expect(back.text).to.include(markers.get('west.rehaklinik'));
    } finally {
      await server.close();
    }
  });

  it('fails a fetch cleanly when the disk fills: 503, nothing half-written kept or served, the next fetch completes', async () => {
    const disk = fillingDisk(100 * 1024);
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100' }, storeFileSink: disk.sink });
    const klsDir = server.deps.config.klsDir;
    try {
      await waitUntil(async () => (await storeStatus(server)).initialized === true);
      const full = await report(server, 'ost.rehaklinik');
      expectProblem(full, 503);
      // in words for the client; the errno and the file's path are for the log
      expect(full.body.detail).to.match(/the cache's disk is full/);
      expect(full.body.detail).not.to.match(/ENOSPC|\.download-/);
      expect(disk.failures).to.equal(1);
      expect(temporaryFiles(klsDir)).to.deep.equal([]);
      expect(fs.existsSync(path.join(klsDir, 'ost', 'rehaklinik', 'kls.sqlite'))).to.equal(false);
      expect((await storeStatus(server)).cache).to.deep.include({ usedBytes: bytesOnDisk(klsDir), reservedBytes: 0 });
      disk.free(10 * MiB);
      const served = await report(server, 'ost.rehaklinik');
      expect(served.status).to.equal(200);
      expect(served.text).to.include(markers.get('ost.rehaklinik'));
    } finally {
      await server.close();
    }
  });

  it('fetches the object the store holds when it changed since the listing: the complete new object, never a mix', async () => {
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100' } });
    try {
      await waitUntil(async () => (await storeStatus(server)).initialized === true);
      // written after the listing: the GET of the listed ETag finds another object
      await store.put('west/hopital-cantonal/kls.sqlite', tenantVariant('west', 'hopital-cantonal', 'hopital-cantonal (v2)', 'west.hopital-cantonal v2'));
      const res = await report(server, 'west.hopital-cantonal');
      expect(res.status).to.equal(200);
      expect(res.text).to.include('west.hopital-cantonal v2');
      expect((await tenantOf(server, 'west.hopital-cantonal')).displayName).to.equal('hopital-cantonal (v2)');
      const stat = await store.client.statObject(store.bucket, 'west/hopital-cantonal/kls.sqlite');
      const cached = path.join(server.deps.config.klsDir, 'west', 'hopital-cantonal', 'kls.sqlite');
      expect(fs.statSync(cached).size).to.equal(stat.size);
    } finally {
      await server.close();
    }
  });
});
