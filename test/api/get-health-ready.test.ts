import { expect } from 'chai';
import fs from 'node:fs';
import { call, callWithHost, expectProblem } from '../helpers/http.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startStoreModeServer, waitUntil } from '../helpers/store-mode.js';

describe('GET /health/ready', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers 200 ready in local mode, never cached, with the build label', async () => {
    const res = await call(server.url, '/health/ready');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ready', mode: 'local', version: res.headers.get('x-build-label') });
    expect(res.headers.get('cache-control')).to.equal('no-store');
  });

  it('answers 503 kls-dir-unreadable while KLS_DIR cannot be read', async () => {
    const moved = `${server.deps.config.klsDir}.away`;
    fs.renameSync(server.deps.config.klsDir, moved);
    try {
      const res = await call(server.url, '/health/ready');
      expect(res.status).to.equal(503);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body).to.deep.include({ status: 'not_ready', reason: 'kls-dir-unreadable', detail: 'KLS_DIR is not readable', mode: 'local' });
    } finally {
      fs.renameSync(moved, server.deps.config.klsDir);
    }
    expect((await call(server.url, '/health/ready')).status).to.equal(200);
  });

  it('answers 503 app-database-unreachable when the app database does not answer', async () => {
    const local = await startTestServer();
    try {
      await local.deps.appDb.close();
      const res = await call(local.url, '/health/ready');
      expect(res.status).to.equal(503);
      expect(res.body).to.include({ reason: 'app-database-unreachable' });
    } finally {
      await local.close();
    }
  });

  it('answers 503 shutting-down from the start of a stop while every other request is still served', async () => {
    const local = await startTestServer();
    // the stop's delay: it serves on for 5 s before it closes anything, and readiness says so from the start
    const stopped = local.stop(1000, 5000);
    try {
      const ready = await call(local.url, '/health/ready');
      expect(ready.status).to.equal(503);
      expect(ready.body).to.include({ status: 'not_ready', reason: 'shutting-down' });
      expect((await call(local.url, '/health')).status).to.equal(200);
      expect((await call(local.url, '/health/live')).status).to.equal(200);
      expect((await call(local.url, '/api/jumpbar?mode=summary&tenant=kantonsspital')).status).to.equal(200);
    } finally {
      await stopped;
      await local.close();
    }
  });

  it('answers 400 for an undeclared query parameter and 421 for a foreign Host', async () => {
    expectProblem(await call(server.url, '/health/ready?verbose=1'), 400);
    expectProblem(await callWithHost(server.url, '/health/ready', 'evil.example'), 421);
  });
});

describe('GET /health/ready in KLS store mode', () => {
  let store: TestObjectStore;
  beforeEach(async () => {
    store = await startObjectStore();
    await store.uploadDemo();
  });
  afterEach(async () => store.close());

  it('answers 503 store-not-initialized until the first sync has finished, then 200', async () => {
    store.slowDownloads(1000);
    const server = await startStoreModeServer(store);
    try {
      const waiting = await call(server.url, '/health/ready');
      expect(waiting.status).to.equal(503);
      expect(waiting.body).to.include({ reason: 'store-not-initialized', mode: 'store' });
      store.slowDownloads(null);
      const ready = await waitUntil(async () => {
        const res = await call(server.url, '/health/ready');
        return res.status === 200 ? res : undefined;
      }, 30_000, 'readiness');
      expect(ready.body).to.include({ status: 'ready', mode: 'store' });
    } finally {
      await server.close();
    }
  });

  it('answers 503 object-store-unreachable while the store was never reached and nothing is cached', async () => {
    await store.stop();
    const server = await startStoreModeServer(store);
    try {
      const down = await waitUntil(async () => {
        const res = await call(server.url, '/health/ready');
        return res.body.reason === 'object-store-unreachable' ? res : undefined;
      });
      expect(down.status).to.equal(503);
    } finally {
      await server.close();
    }
  });
});
