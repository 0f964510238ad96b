import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { bearer } from '../helpers/sign-in.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';

describe('GET /api/store-status', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers {active:false} in local mode', async () => {
    const res = await call(server.url, '/api/store-status');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ active: false });
  });
});

describe('GET /api/store-status in KLS store mode', () => {
  let store: TestObjectStore;
  before(async () => {
    store = await startObjectStore();
    await store.uploadDemo('prod/');
  });
  after(async () => store.close());

  it('downloads every tenant of the prefix into an empty cache: ready, generation 1, sizes and display names', async () => {
    const server = await startStoreModeServer(store, { env: { S3_PREFIX: 'prod' } });
    try {
      // every answer below passed the server's response validator (a breach would be a 500)
      expect(server.deps.config.responseValidation).to.equal(true);
      const status = await waitForSync(server);
      expect(status).to.deep.include({ active: true, initialized: true, ready: true, downloading: false, error: null, bytesDone: 0, bytesTotal: 0 });
      expect(status.tenants.map((t: { compositeId: string }) => t.compositeId)).to.deep.equal([
        'ost.kantonsspital',
        'ost.rehaklinik',
        'west.hopital-cantonal',
        'west.rehaklinik',
      ]);
      const first = status.tenants[0];
      expect(first).to.deep.include({ tenantId: 'kantonsspital', pack: 'ost', status: 'ready', hasSis: false, error: null, generation: 1 });
      expect(first.displayName).to.not.equal('kantonsspital');
      expect(first.sizeMb).to.be.greaterThan(0);
      const file = path.join(server.dataDir, 'kls', 'ost', 'kantonsspital', 'kls.sqlite');
      expect(fs.statSync(file).size).to.equal(fs.statSync(path.join(demoTemplateDir(), 'kls', 'ost', 'kantonsspital', 'kls.sqlite')).size);
      const summary = await call(server.url, '/api/jumpbar?mode=summary&tenant=ost.kantonsspital');
      expect(summary.status).to.equal(200);
      expect(fs.readdirSync(path.dirname(file)).filter((n) => n.includes('.download-'))).to.deep.equal([]);
    } finally {
      await server.close();
    }
  });

  it('reports downloading tenants with bytes done and total, and answers their reads 503 with Retry-After meanwhile', async () => {
    store.slowDownloads(60);
    const server = await startStoreModeServer(store, { env: { S3_PREFIX: 'prod', STORE_CONCURRENCY: '1' } });
    try {
      const during = await waitUntil(async () => {
        const res = await call(server.url, '/api/store-status');
        const running = res.body.tenants.find((t: { status: string; bytesDone: number }) => t.status === 'downloading' && t.bytesDone > 0);
        return running === undefined ? undefined : { body: res.body, running };
      });
      expect(during.body.downloading).to.equal(true);
      expect(during.body.ready).to.equal(false);
      expect(during.running.bytesTotal).to.be.greaterThan(during.running.bytesDone);
      expect(during.body.bytesTotal).to.equal(during.running.bytesTotal);
      expect(during.running.sizeMb).to.equal(null);
      expect(during.running.generation).to.equal(0);
      // STORE_CONCURRENCY=1: one download at a time, the others wait as pending
      const statuses = during.body.tenants.map((t: { status: string }) => t.status);
      expect(statuses.filter((s: string) => s === 'downloading')).to.have.length(1);
      expect(statuses).to.include('pending');
      const waiting = during.body.tenants.find((t: { status: string }) => t.status === 'pending');
      const read = await call(server.url, `/api/jumpbar?mode=summary&tenant=${waiting.compositeId}`);
      expectProblem(read, 503);
      expect(Number(read.headers.get('retry-after'))).to.be.greaterThan(0);
      expect((await call(server.url, `/api/db-status/${waiting.compositeId}`)).status).to.equal(503);
      store.slowDownloads(null);
      const done = await waitForSync(server);
      expect(done.ready).to.equal(true);
    } finally {
      store.slowDownloads(null);
      await server.close();
    }
  });

  it('stops running downloads on shutdown without leaving temporary files behind', async () => {
    const cache = tempDir('ads-store-stop-');
    store.slowDownloads(50);
    try {
      const server = await startStoreModeServer(store, { dataDir: cache.dir, env: { S3_PREFIX: 'prod' } });
      await waitUntil(async () => {
        const res = await call(server.url, '/api/store-status');
        return res.body.bytesDone > 0;
      });
      store.resetTraffic();
      await server.close();
      // a download still running was broken off, not waited for
      await waitUntil(() => store.traffic.cutOff > 0, 15_000, 'a download broken off by the shutdown');
      const leftovers = fs.readdirSync(cache.dir, { recursive: true }).map(String).filter((n) => n.includes('.download-'));
      expect(leftovers).to.deep.equal([]);
    } finally {
      store.slowDownloads(null);
      cache.remove();
    }
  });

  it('with sign-in, reports only the tenants of the caller, and counts only theirs', async () => {
    const provider = await OidcProvider.start();
    const server = await startStoreModeServer(store, {
      env: { S3_PREFIX: 'prod', AUTH_MODE: 'oidc', OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: provider.audience },
    });
    try {
      const admin = bearer(await provider.token());
      await waitUntil(async () => {
        const res = await call(server.url, '/api/store-status', { headers: admin });
        return res.body.initialized === true && res.body.downloading === false;
      });
      const west = bearer(await provider.token({ roles: ['viewer'], tenants: ['west.*'] }));
      const res = await call(server.url, '/api/store-status', { headers: west });
      expect(res.status).to.equal(200);
      expect(res.body.tenants.map((t: { compositeId: string }) => t.compositeId)).to.deep.equal(['west.hopital-cantonal', 'west.rehaklinik']);
      expect(res.body).to.deep.include({ ready: true, downloading: false, bytesDone: 0, bytesTotal: 0 });
      expectProblem(await call(server.url, '/api/refresh?scope=tenant&tenant=ost.kantonsspital', { headers: bearer(await provider.token({ tenants: ['west.*'] })) }), 404);
      expectProblem(await call(server.url, '/api/store-status'), 401);
    } finally {
      await server.close();
      await provider.close();
    }
  });
});
