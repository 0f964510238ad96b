import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call } from '../helpers/http.js';
import { buildKls } from '../helpers/kls-builder.js';
import { startObjectStoreProcess, type ChildObjectStore } from '../helpers/s3rver-process.js';
import { tempDir } from '../helpers/server.js';
import { startStoreModeServer, waitUntil } from '../helpers/store-mode.js';

/** One more tenant than a listing page holds (1,000 keys), so that the listing needs a second page. */
const TENANTS = 1001;
const slugOf = (i: number): string => `h${String(i).padStart(4, '0')}`;

/** Puts one small tenant file under `group/<slug>/kls.sqlite` for each of TENANTS slugs, 16 at a time. */
async function uploadTenants(put: (key: string, file: string) => Promise<unknown>, file: string): Promise<void> {
  for (let first = 0; first < TENANTS; first += 16) {
    await Promise.all(Array.from({ length: Math.min(16, TENANTS - first) }, (_, i) => put(`group/${slugOf(first + i)}/kls.sqlite`, file)));
  }
}

describe('KLS store mode with a thousand tenants in the store', function () {
  this.timeout(180_000);
  const files = tempDir('ads-listing-');
  const small = path.join(files.dir, 'kls.sqlite');
  before(() => buildKls(small, 'small'));
  after(() => files.remove());

  describe('listed over two pages (s3rver in a process with OpenSSL legacy provider)', () => {
    let store: ChildObjectStore;
    before(async () => {
      store = await startObjectStoreProcess();
      await uploadTenants((key, file) => store.client.fPutObject(store.bucket, key, file), small);
    });
    after(async () => store?.close());

    it('is ready with an empty bounded cache after the listing alone: every tenant known, nothing downloaded', async () => {
      await store.resetTraffic();
      const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '64' } });
      try {
        const ready = await waitUntil(async () => {
          const res = await call(server.url, '/health/ready');
          return res.status === 200 ? res : undefined;
        }, 60_000, 'readiness');
        expect(ready.body).to.include({ status: 'ready', mode: 'store' });
        const traffic = await store.traffic();
        expect(traffic.objectGets).to.equal(0);
        expect(traffic.lists).to.be.at.least(2);
        const status = (await call(server.url, '/api/store-status')).body;
        expect(status).to.include({ initialized: true, error: null });
        expect(status.tenants).to.have.length(TENANTS);
        // the tenant on the second page is served on its first use
        expect((await call(server.url, `/api/db-status/group.${slugOf(TENANTS - 1)}`)).status).to.equal(200);
        expect((await call(server.url, `/api/jumpbar?mode=summary&tenant=group.${slugOf(TENANTS - 1)}`)).status).to.equal(200);
        expect((await store.traffic()).objectGets).to.equal(1);
      } finally {
        await server.close();
      }
    });
  });

  describe('a listing whose second page fails', () => {
    let store: ChildObjectStore;
    before(async () => {
      store = await startObjectStoreProcess();
      await uploadTenants((key, file) => store.client.fPutObject(store.bucket, key, file), small);
    });
    after(async () => store?.close());

    it('keeps the tenants it knew and those of the first page, removes none, reports it, and lists them all once it can', async () => {
      const cache = tempDir('ads-listing-cache-');
      // a tenant cached by an earlier run, whose key is on the page that fails
      const last = slugOf(TENANTS - 1);
      fs.mkdirSync(path.join(cache.dir, 'kls', 'group', last), { recursive: true });
      fs.copyFileSync(small, path.join(cache.dir, 'kls', 'group', last, 'kls.sqlite'));
      await store.failLaterListingPages(true);
      const server = await startStoreModeServer(store, { dataDir: cache.dir, env: { STORE_CACHE_MAX_MB: '64' } });
      try {
        const status = await waitUntil(async () => {
          const res = await call(server.url, '/api/store-status');
          return res.body.initialized === true ? res.body : undefined;
        }, 60_000, 'the first listing');
        expect(status.error).to.match(/^object store listing incomplete: .*; the 999 objects listed before stay known, none is removed$/);
        const ids = new Set(status.tenants.map((t: { compositeId: string }) => t.compositeId));
        // the first page's 1,000 keys but its last folder (its sis.sqlite could be on the next page), and the cached one
        expect(ids.size).to.equal(1000);
        expect(ids.has(`group.${slugOf(0)}`)).to.equal(true);
        expect(ids.has(`group.${slugOf(998)}`)).to.equal(true);
        expect(ids.has(`group.${slugOf(999)}`)).to.equal(false);
        expect(ids.has(`group.${last}`)).to.equal(true);
        expect((await call(server.url, `/api/jumpbar?mode=summary&tenant=group.${last}`)).status).to.equal(200);
        expect((await call(server.url, '/health/ready')).status).to.equal(200);
        expect((await call(server.url, '/health')).body).to.include({ status: 'degraded', mode: 'store' });

        await store.failLaterListingPages(false);
        const refreshed = await call(server.url, '/api/refresh?wait=true');
        expect(refreshed.body).to.include({ status: 'completed', tenants: TENANTS });
        expect(refreshed.body).not.to.have.property('error');
        expect((await call(server.url, '/health')).body).to.include({ status: 'ok' });
      } finally {
        await server.close();
        cache.remove();
      }
    });
  });
});
