import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call } from '../helpers/http.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';

describe('GET /health', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers ok in local mode with tenant count, app database and build label', async () => {
    const res = await call(server.url, '/health');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ status: 'ok', mode: 'local' });
    expect(res.body.db).to.deep.equal({ tenants: 4, appDb: 'ok' });
    expect(res.body.sizeMb).to.be.a('number').greaterThan(0);
    const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
    expect(res.body.version).to.match(new RegExp(`^v${version.replace(/\./g, '\\.')} \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}$`));
    expect(res.headers.get('x-build-label')).to.equal(res.body.version);
    expect(res.headers.get('x-request-id')).to.be.a('string');
  });

  it('answers 503 {status:"error"} when KLS_DIR is not readable', async () => {
    const moved = `${server.deps.config.klsDir}.away`;
    fs.renameSync(server.deps.config.klsDir, moved);
    try {
      const res = await call(server.url, '/health');
      expect(res.status).to.equal(503);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body).to.include({ status: 'error', error: 'KLS_DIR is not readable' });
    } finally {
      fs.renameSync(moved, server.deps.config.klsDir);
    }
  });

  it('keeps serving its tenants when a scan finds KLS_DIR unreadable for a moment', async () => {
    const before = await call(server.url, '/api/db-status/kantonsspital');
    const moved = `${server.deps.config.klsDir}.away`;
    fs.renameSync(server.deps.config.klsDir, moved);
    try {
      server.deps.tenants.scanLocal();
      expect(server.deps.tenants.list()).to.have.length(4);
    } finally {
      fs.renameSync(moved, server.deps.config.klsDir);
    }
    server.deps.tenants.scanLocal();
    const after = await call(server.url, '/api/db-status/kantonsspital');
    expect(after.status).to.equal(200);
    expect(after.body.generation).to.equal(before.body.generation);
  });

  it('answers 503 when the app database is closed', async () => {
    const local = await startTestServer();
    try {
      await local.deps.appDb.close();
      const res = await call(local.url, '/health');
      expect(res.status).to.equal(503);
      expect(res.body).to.include({ status: 'error', error: 'app database unreachable' });
    } finally {
      await local.close();
    }
  });

  it('reports degraded while a tenant file cannot be opened', async () => {
    const local = await startTestServer();
    try {
      const bad = path.join(local.deps.config.klsDir, 'ost', 'kaputt');
      fs.mkdirSync(bad, { recursive: true });
      fs.writeFileSync(path.join(bad, 'kls.sqlite'), 'this is not a database, just text that is long enough '.repeat(20));
      local.deps.tenants.scanLocal();
      const res = await call(local.url, '/health');
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('degraded');
      expect(res.body.db.tenants).to.equal(4);
    } finally {
      await local.close();
    }
  });
});

describe('GET /health in KLS store mode', () => {
  let store: TestObjectStore;
  beforeEach(async () => {
    store = await startObjectStore();
    await store.uploadDemo();
  });
  afterEach(async () => store.close());

  it('answers ok with tenant, download and error counts once the store is synced', async () => {
    const server = await startStoreModeServer(store);
    try {
      await waitForSync(server);
      const res = await call(server.url, '/health');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ status: 'ok', mode: 'store', tenants: 4, downloading: 0, errors: 0, initialized: true });
      expect(res.body.sizeMb).to.be.greaterThan(0);
      expect(res.body.version).to.equal(res.headers.get('x-build-label'));
    } finally {
      await server.close();
    }
  });

  it('answers 503 while the store was never reachable and nothing is cached; a refresh recovers once it is back', async () => {
    await store.stop();
    const server = await startStoreModeServer(store);
    try {
      const down = await waitUntil(async () => {
        const res = await call(server.url, '/health');
        return res.status === 503 ? res : undefined;
      });
      expect(down.headers.get('content-type')).to.match(/^application\/json/);
      expect(down.body).to.include({ status: 'error', mode: 'store' });
      expect(down.body.error).to.match(/^object store unreachable: /);
      const status = (await call(server.url, '/api/store-status')).body;
      expect(status).to.deep.include({ active: true, initialized: true, ready: false, downloading: false, tenants: [] });
      expect(status.error).to.equal(down.body.error);

      await store.restart();
      const refreshed = await call(server.url, '/api/refresh', { method: 'POST', json: { wait: true } });
      expect(refreshed.body).to.deep.equal({ status: 'completed', scope: 'all', invalidated: 0, tenants: 4, ready: 4 });
      const up = await call(server.url, '/health');
      expect(up.status).to.equal(200);
      expect(up.body).to.include({ status: 'ok', tenants: 4, errors: 0 });
      expect((await call(server.url, '/api/store-status')).body.error).to.equal(null);
    } finally {
      await server.close();
    }
  });

  it('serves the cached tenants while the store is down at start (degraded), and recovers on refresh', async () => {
    const cache = tempDir('ads-store-cache-');
    try {
      const first = await startStoreModeServer(store, { dataDir: cache.dir });
      await waitForSync(first);
      await first.close();
      await store.stop();
      const server = await startStoreModeServer(store, { dataDir: cache.dir });
      try {
        const status = await waitForSync(server);
        expect(status.error).to.match(/^object store unreachable: /);
        expect(status.tenants).to.have.length(4);
        const health = await call(server.url, '/health');
        expect(health.status).to.equal(200);
        expect(health.body).to.include({ status: 'degraded', tenants: 4, errors: 0, initialized: true });
        expect((await call(server.url, '/api/jumpbar?mode=summary&tenant=ost.kantonsspital')).status).to.equal(200);
        const failed = await call(server.url, '/api/refresh?wait=true');
        expect(failed.body).to.include({ status: 'completed', tenants: 4, ready: 4 });
        expect(failed.body.error).to.match(/^object store unreachable: /);

        await store.restart();
        await call(server.url, '/api/refresh?wait=true');
        expect((await call(server.url, '/health')).body).to.include({ status: 'ok' });
      } finally {
        await server.close();
      }
    } finally {
      cache.remove();
    }
  });
});
