import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { startStoreModeServer, waitForSync } from '../helpers/store-mode.js';

describe('GET /api/db-status/{tenant}', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers generation 1, the file mtime and size for a slug and for a composite ID', async () => {
    const file = path.join(server.deps.config.klsDir, 'ost', 'kantonsspital', 'kls.sqlite');
    const stat = fs.statSync(file);
    for (const tenant of ['kantonsspital', 'ost.kantonsspital']) {
      const res = await call(server.url, `/api/db-status/${tenant}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ generation: 1, mtime: stat.mtime.toISOString(), sizeMb: Math.round((stat.size / 1048576) * 100) / 100 });
      expect(res.headers.get('cache-control')).to.equal('no-store');
    }
  });

  it('swaps a replaced file: generation + 1 and the new mtime; requests then read the new file', async () => {
    const dir = path.join(server.deps.config.klsDir, 'west', 'hopital-cantonal');
    const before = await call(server.url, '/api/db-status/hopital-cantonal');
    const copy = path.join(dir, 'kls.sqlite.tmp');
    fs.copyFileSync(path.join(server.deps.config.klsDir, 'ost', 'kantonsspital', 'kls.sqlite'), copy);
    fs.utimesSync(copy, new Date('2026-11-02T08:00:00Z'), new Date('2026-11-02T08:00:00Z'));
    fs.renameSync(copy, path.join(dir, 'kls.sqlite'));
    const after = await call(server.url, '/api/db-status/hopital-cantonal');
    expect(after.body.generation).to.equal(before.body.generation + 1);
    expect(after.body.mtime).to.equal('2026-11-02T08:00:00.000Z');
    const list = await call(server.url, '/api/jumpbar?mode=tenants');
    const entry = list.body.tenants.find((t: { id: string }) => t.id === 'west.hopital-cantonal');
    expect(entry.name).to.equal('Kantonsspital Ost');
  });

  it('answers 404 for an unknown tenant, 409 for an ambiguous slug, 400 for a malformed one', async () => {
    expectProblem(await call(server.url, '/api/db-status/nowhere'), 404);
    expectProblem(await call(server.url, '/api/db-status/ost.nowhere'), 404);
    expectProblem(await call(server.url, '/api/db-status/rehaklinik'), 409);
    const traversal = await call(server.url, '/api/db-status/..%2Fx');
    expectProblem(traversal, 400);
    expect(traversal.body.errors[0]).to.include({ in: 'path', name: 'tenant' });
    expectProblem(await call(server.url, '/api/db-status/Ost.Spital'), 400);
  });
});

describe('GET /api/db-status/{tenant} in KLS store mode', function () {
  this.timeout(60_000);
  let store: TestObjectStore;
  let tenants: string[];
  const WRITTEN = new Date('2025-03-04T05:06:07Z');
  /** The object's Last-Modified as the store answers a HEAD (whole seconds). */
  const lastModified = async (tenant: string): Promise<string> =>
    (await store.client.statObject(store.bucket, `${tenant.replace('.', '/')}/kls.sqlite`)).lastModified.toISOString();
  const mtime = async (server: TestServer, tenant: string): Promise<string> => {
    const res = await call(server.url, `/api/db-status/${tenant}`);
    expect(res.status).to.equal(200);
    return res.body.mtime;
  };

  before(async () => {
    store = await startObjectStore();
    tenants = await store.uploadDemo();
    // objects written long before any download: a download time taken for mtime could never match
    for (const tenant of tenants) store.setLastModified(`${tenant.replace('.', '/')}/kls.sqlite`, WRITTEN);
  });
  after(async () => store.close());

  it("reports the object's Last-Modified as mtime: the same on two instances with caches of their own, and after a restart", async () => {
    const caches = [tempDir('ads-store-a-'), tempDir('ads-store-b-')];
    let first = await startStoreModeServer(store, { dataDir: caches[0]!.dir });
    let second: TestServer | null = null;
    try {
      await waitForSync(first);
      second = await startStoreModeServer(store, { dataDir: caches[1]!.dir });
      await waitForSync(second);
      for (const tenant of tenants) {
        const expected = await lastModified(tenant);
        expect(expected, tenant).to.equal(WRITTEN.toISOString());
        expect(await mtime(first, tenant), tenant).to.equal(expected);
        expect(await mtime(second, tenant), tenant).to.equal(expected);
        expect(fs.statSync(path.join(caches[1]!.dir, 'kls', ...tenant.split('.'), 'kls.sqlite')).mtime.toISOString()).to.equal(expected);
      }
      // a restart over the cache downloads nothing and keeps the times
      await first.close();
      store.resetTraffic();
      first = await startStoreModeServer(store, { dataDir: caches[0]!.dir });
      await waitForSync(first);
      expect(store.traffic.objectGets).to.equal(0);
      for (const tenant of tenants) expect(await mtime(first, tenant), tenant).to.equal(await lastModified(tenant));
    } finally {
      await first.close();
      await second?.close();
      for (const cache of caches) cache.remove();
    }
  });

  it("gives a cached copy with another mtime (cached by an older build) the object's time at the next start, without downloading it", async () => {
    const cache = tempDir('ads-store-old-');
    let server = await startStoreModeServer(store, { dataDir: cache.dir });
    try {
      await waitForSync(server);
      await server.close();
      const file = path.join(cache.dir, 'kls', 'ost', 'kantonsspital', 'kls.sqlite');
      fs.utimesSync(file, new Date(), new Date('2026-01-02T03:04:05.678Z'));
      store.resetTraffic();
      server = await startStoreModeServer(store, { dataDir: cache.dir });
      await waitForSync(server);
      expect(store.traffic.objectGets).to.equal(0);
      expect(await mtime(server, 'ost.kantonsspital')).to.equal(await lastModified('ost.kantonsspital'));
    } finally {
      await server.close();
      cache.remove();
    }
  });
});
