import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { demoKlsFile, startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { REPORT_KEY, tenantVariant } from '../helpers/store-cache.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';

const TENANT = 'ost.kantonsspital';
const TENANTS = ['ost.kantonsspital', 'ost.rehaklinik', 'west.hopital-cantonal', 'west.rehaklinik'];
const search = (server: TestServer, tenant: string) => call(server.url, `/api/jumpbar?tenant=${tenant}&q=fall`);

/** Waits until the tenant's search index is open and its names are in memory. */
async function indexInMemory(server: TestServer, tenant: string): Promise<void> {
  expect((await search(server, tenant)).status).to.equal(200);
  await server.deps.searchIndexes.buildsSettled();
  await server.deps.searchIndexes.namesSettled();
  expect(server.deps.searchIndexes.openIndexes).to.be.greaterThan(0);
  expect(server.deps.searchIndexes.namesBytes).to.be.greaterThan(0);
}

describe('the store cache and tenant removal: what the review found', function () {
  this.timeout(60_000);

  describe('a removed tenant', () => {
    it('local mode: its file gone, the scan removes it and its search index closes, its names leave memory', async () => {
      const server = await startTestServer({ env: { SEARCH_THREAD: 'off' } });
      try {
        await indexInMemory(server, TENANT);
        const open = server.deps.searchIndexes.openIndexes;
        const names = server.deps.searchIndexes.namesBytes;
        fs.rmSync(path.join(server.deps.config.klsDir, 'ost', 'kantonsspital', 'kls.sqlite'));
        server.deps.tenants.scanLocal();
        expect(server.deps.tenants.get(TENANT)).to.equal(undefined);
        await waitUntil(() => server.deps.searchIndexes.openIndexes === open - 1, 5000, 'the index to close');
        expect(server.deps.searchIndexes.namesBytes).to.be.below(names);
      } finally {
        await server.close();
      }
    });

    describe('store mode', () => {
      let store: TestObjectStore;
      let server: TestServer;
      beforeEach(async () => {
        store = await startObjectStore();
        await store.uploadDemo();
        server = await startStoreModeServer(store, { env: { SEARCH_THREAD: 'off' } });
        await waitForSync(server);
      });
      afterEach(async () => {
        await server.close();
        await store.close();
      });

      it('gone from the store, a refresh removes it and its search index closes, its names leave memory', async () => {
        await indexInMemory(server, TENANT);
        const open = server.deps.searchIndexes.openIndexes;
        const names = server.deps.searchIndexes.namesBytes;
        await store.remove('ost/kantonsspital/kls.sqlite');
        expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
        expect(server.deps.tenants.get(TENANT)).to.equal(undefined);
        await waitUntil(() => server.deps.searchIndexes.openIndexes === open - 1, 5000, 'the index to close');
        expect(server.deps.searchIndexes.namesBytes).to.be.below(names);
      });

      it('gone from the store while a lease holds its file: it leaves the list at once, its files stay until the lease ends, then a refresh deletes them', async () => {
        const entry = server.deps.tenants.get(TENANT)!;
        const lease = await server.deps.tenants.lease(entry);
        await store.remove('ost/kantonsspital/kls.sqlite');
        expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
        // gone for every new request at once; only its files wait for the lease
        expect(server.deps.tenants.get(TENANT)).to.equal(undefined);
        expectProblem(await call(server.url, `/api/db-status/${TENANT}`), 404);
        expect(fs.existsSync(entry.klsPath)).to.equal(true);
        expect(lease.db.prepare('SELECT count(*) AS n FROM meta').get()).to.have.property('n').above(0);
        lease.release();
        // the search index builds queued at start lease their tenants too
        await server.deps.searchIndexes.buildsSettled();
        expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
        expect(fs.existsSync(entry.dir)).to.equal(false);
        expect(server.deps.tenants.get(TENANT)).to.equal(undefined);
      });
    });
  });

  describe('bounded cache', () => {
    let store: TestObjectStore;
    beforeEach(async () => {
      store = await startObjectStore();
      await store.uploadDemo();
    });
    afterEach(async () => {
      await store.close();
    });

    it('a tenant in use whose object vanished keeps its files while a request waits for it or a lease holds it', async () => {
      const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100' } });
      try {
        await waitForSync(server);
        expect((await call(server.url, `/api/reports/${TENANT}/monthly_controlling_2026_10`)).status).to.equal(200);
        const entry = server.deps.tenants.get(TENANT)!;
        const lease = await server.deps.tenants.lease(entry);
        await store.remove('ost/kantonsspital/kls.sqlite');
        expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
        // gone for every new request at once; only its files wait for the lease
        expect(server.deps.tenants.get(TENANT)).to.equal(undefined);
        expectProblem(await call(server.url, `/api/db-status/${TENANT}`), 404);
        expect(fs.existsSync(entry.klsPath)).to.equal(true);
        lease.release();
        // the read again moved the tenant to the protected segment, whose index build leases it too
        await server.deps.searchIndexes.buildsSettled();
        expect((await call(server.url, '/api/refresh?wait=true')).status).to.equal(200);
        expect(fs.existsSync(entry.dir)).to.equal(false);
      } finally {
        await server.close();
      }
    });

    it('keeps a cached tenant counted when its folder cannot be read, so the cache stays within its bound', async () => {
      const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100' } });
      try {
        await waitForSync(server);
        expect((await call(server.url, `/api/reports/${TENANT}/monthly_controlling_2026_10`)).status).to.equal(200);
        await server.deps.searchIndexes.buildsSettled();
        const cache = server.deps.store!.cache!;
        const entry = server.deps.tenants.get(TENANT)!;
        const counted = cache.budget.chargeOf(TENANT)!;
        expect(counted).to.be.greaterThan(fs.statSync(entry.klsPath).size - 1);
        // a folder that cannot be listed (here: a file in its place; EACCES, EIO alike)
        const aside = `${entry.dir}.aside`;
        fs.renameSync(entry.dir, aside);
        fs.writeFileSync(entry.dir, 'not a folder');
        try {
          cache.settle(entry);
          expect(cache.budget.chargeOf(TENANT)).to.equal(counted);
          expect(cache.budget.usedBytes).to.be.at.least(counted);
        } finally {
          fs.rmSync(entry.dir);
          fs.renameSync(aside, entry.dir);
        }
      } finally {
        await server.close();
      }
    });

    it('STORE_WARM evicts nothing: it stops when the next tenant and its search index would not fit', async () => {
      // tenants of 1.1 MB
      for (const id of TENANTS) {
        const [pack, slug] = id.split('.') as [string, string];
        const padBytes = 1_100_000 - fs.statSync(demoKlsFile(pack, slug)).size;
        await store.put(`${pack}/${slug}/kls.sqlite`, tenantVariant(pack, slug, slug, id, padBytes));
      }
      // a first run caches the two west tenants (about 1.31 MB each with its index) within 4 MiB
      const data = tempDir('ads-warm-');
      try {
        const first = await startStoreModeServer(store, { dataDir: data.dir, env: { STORE_CACHE_MAX_MB: '4', SEARCH_THREAD: 'off' } });
        try {
          await waitForSync(first);
          for (const id of ['west.hopital-cantonal', 'west.rehaklinik']) expect((await call(first.url, `/api/reports/${id}/${REPORT_KEY}`)).status).to.equal(200);
          await first.deps.searchIndexes.buildsSettled();
        } finally {
          await first.close();
        }
        // the next run warms ost.*: a 1.1 MB file would fit in the 1.57 MB left, its index build beside it would not
        const server = await startStoreModeServer(store, { dataDir: data.dir, env: { STORE_CACHE_MAX_MB: '4', STORE_WARM: 'ost.*', SEARCH_THREAD: 'off' } });
        try {
          const cache = server.deps.store!.cache!;
          await server.deps.store!.warmed();
          await server.deps.searchIndexes.buildsSettled();
          const status = (await call(server.url, '/api/store-status?include_cache=true')).body;
          const cached = status.tenants.filter((t: { cache: string }) => t.cache === 'cached').map((t: { compositeId: string }) => t.compositeId);
          expect(cache.evictions).to.equal(0);
          expect(cached).to.include.members(['west.hopital-cantonal', 'west.rehaklinik']);
          expect(cache.budget.usedBytes + cache.budget.reservedBytes).to.be.at.most(cache.budget.maxBytes);
        } finally {
          await server.close();
        }
      } finally {
        data.remove();
      }
    });
  });
});
