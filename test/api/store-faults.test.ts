import { expect } from 'chai';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import type { Logger } from '../../src/logger.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { spawnServer } from '../helpers/server-process.js';
import { tempDir, type TestServer } from '../helpers/server.js';
import { REPORT_KEY, temporaryFiles, tenantVariant } from '../helpers/store-cache.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';

/** Time limits of the servers here: a store that does not answer within them is given up. */
const LIMIT_MS = 1000;
const DEADLINES = { STORE_CONNECT_TIMEOUT_MS: String(LIMIT_MS), STORE_FIRST_BYTE_TIMEOUT_MS: String(LIMIT_MS), STORE_IDLE_TIMEOUT_MS: String(LIMIT_MS) };

const report = (server: { url: string }, id: string) => call(server.url, `/api/reports/${id}/${REPORT_KEY}`);
const storeStatus = async (server: TestServer): Promise<any> => (await call(server.url, '/api/store-status?include_cache=true')).body;
const tenantOf = async (server: TestServer, id: string): Promise<any> => (await storeStatus(server)).tenants.find((t: { compositeId: string }) => t.compositeId === id);

/** Request lines (`GET /<bucket>/<pack>/<slug>/…`) of the objects of the tenants `ids`. */
const objectsOf = (...ids: string[]): RegExp => new RegExp(ids.map((id) => `/${id.replace('.', '/')}/`).join('|'));
/** Request lines of listings. */
const LISTINGS = /list-type=2/;

/** Asserts that `text` names nothing of the store's internals: its address, bucket, keys, URLs, errno names. */
function expectNoInternals(text: string, store: TestObjectStore, proxy: FaultProxy): void {
  const storePort = new URL(store.endpoint).port;
  for (const leak of ['127.0.0.1', `:${storePort}`, `:${proxy.port}`, store.bucket, 's3://', '.sqlite-download', 'kls.sqlite/'] as const) {
    expect(text, `"${leak}" in ${text}`).not.to.include(leak);
  }
  expect(text).not.to.match(/\/(ost|west)\/[a-z-]+\/(kls|sis)\.sqlite/);
  expect(text).not.to.match(/\bE(CONN[A-Z]+|NOSPC|TIMEDOUT|PIPE|NOTFOUND|AI_AGAIN|HOSTUNREACH)\b/);
}

describe('KLS store mode against a store that hangs, stalls and cuts connections', function () {
  this.timeout(60_000);
  let store: TestObjectStore;
  let proxy: FaultProxy;
  let ids: string[];
  beforeEach(async () => {
    store = await startObjectStore();
    ids = await store.uploadDemo();
    proxy = await startFaultProxy(store.endpoint);
  });
  afterEach(async () => {
    await proxy.close();
    await store.close();
  });

  const start = (env: Record<string, string> = {}, log?: Logger): Promise<TestServer> =>
    startStoreModeServer(store, {
      env: { S3_ENDPOINT: proxy.endpoint, STORE_CACHE_MAX_MB: '1000', STORE_CONCURRENCY: '2', STORE_FETCH_WAIT_MS: '8000', ...DEADLINES, ...env },
      ...(log === undefined ? {} : { log }),
    });

  it('gives up downloads the store hangs on, frees their slots for a third tenant, and recovers without a restart', async () => {
    const server = await start();
    try {
      await waitForSync(server);
      const [a, b, c] = ids as [string, string, string];
      proxy.inject({ kind: 'hang' }, objectsOf(a, b));
      const hung = [report(server, a), report(server, b)];
      await waitUntil(() => proxy.faulted.length >= 2, 5000, 'both downloads held by the store');
      // both slots of STORE_CONCURRENCY=2 are taken by downloads that get no answer: the third waits for one
      const asked = performance.now();
      const third = await report(server, c);
      const thirdMs = performance.now() - asked;
      expect(third.status, third.text).to.equal(200);
      expect(thirdMs).to.be.below(8000);
      for (const answer of await Promise.all(hung)) {
        expectProblem(answer, 503);
        expect(answer.body.detail).to.match(/did not answer within 1000 ms/);
        expect(Number(answer.headers.get('retry-after'))).to.be.greaterThan(0);
        expectNoInternals(answer.text, store, proxy);
      }
      // the room the two downloads reserved is given back (the third tenant's search index may still be built)
      const status = await waitUntil(async () => {
        const now = await storeStatus(server);
        return now.cache.reservedBytes === 0 ? now : undefined;
      }, 15_000, 'no room reserved');
      expect(status.downloading).to.equal(false);
      for (const id of [a, b]) {
        const t = status.tenants.find((x: any) => x.compositeId === id);
        expect(t).to.deep.include({ status: 'error', bytesDone: 0, bytesTotal: 0 });
        expectNoInternals(t.error, store, proxy);
      }
      expect(temporaryFiles(path.join(server.dataDir, 'kls'))).to.deep.equal([]);
      expect((await call(server.url, '/health')).body.status).to.equal('degraded');

      // the store answers again: the next use fetches the tenant, a listing clears the error of the other
      proxy.heal();
      expect((await report(server, a)).status).to.equal(200);
      expect((await tenantOf(server, b)).status).to.equal('error');
      const refreshed = await call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      expect(refreshed.status).to.equal(200);
      expect(refreshed.body).to.include({ status: 'completed' });
      expect(refreshed.body.error).to.equal(undefined);
      expect(await tenantOf(server, b)).to.deep.include({ status: 'pending', error: null });
      expect((await call(server.url, '/health')).body.status).to.equal('ok');
      expect((await report(server, b)).status).to.equal(200);
    } finally {
      await server.close();
    }
  });

  it('without a bound on the cache: the first sync gives up what the store holds, and a refresh once it answers brings every tenant', async () => {
    proxy.inject({ kind: 'hang' }, /\/kls\.sqlite/);
    const server = await startStoreModeServer(store, { env: { S3_ENDPOINT: proxy.endpoint, STORE_CONCURRENCY: '2', ...DEADLINES } });
    try {
      const synced = await waitForSync(server);
      expect(synced.tenants.map((t: any) => t.status)).to.deep.equal(ids.map(() => 'error'));
      for (const t of synced.tenants) expect(t.error).to.equal('the object store did not answer within 1000 ms');
      const answer = await report(server, ids[0]!);
      expectProblem(answer, 503);
      expectNoInternals(answer.text, store, proxy);
      expect(temporaryFiles(path.join(server.dataDir, 'kls'))).to.deep.equal([]);
      proxy.heal();
      const refreshed = await call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      expect(refreshed.body).to.include({ status: 'completed', tenants: ids.length, ready: ids.length });
      expect((await call(server.url, '/health')).body.status).to.equal('ok');
      expect((await report(server, ids[0]!)).status).to.equal(200);
    } finally {
      await server.close();
    }
  });

  it('gives up a body that stalls mid-transfer, removes its temporary file, and fetches it once the store sends again', async () => {
    const server = await start();
    try {
      await waitForSync(server);
      const [a] = ids as [string];
      proxy.inject({ kind: 'stall', afterBytes: 32 * 1024 }, objectsOf(a));
      const stalled = await report(server, a);
      expectProblem(stalled, 503);
      expect(stalled.body.detail).to.match(/stopped sending \(no byte for 1000 ms\)/);
      expectNoInternals(stalled.text, store, proxy);
      expect(temporaryFiles(path.join(server.dataDir, 'kls'))).to.deep.equal([]);
      expect((await storeStatus(server)).cache.reservedBytes).to.equal(0);
      expect((await tenantOf(server, a)).status).to.equal('error');
      proxy.heal();
      expect((await report(server, a)).status).to.equal(200);
      expect(await tenantOf(server, a)).to.deep.include({ status: 'ready', error: null });
    } finally {
      await server.close();
    }
  });

  it('gives up a body that trickles (a byte every 900 ms, never silent for the idle limit) and a head that trickles, and frees their slots', async () => {
    const server = await start();
    try {
      await waitForSync(server);
      const [a, b, c] = ids as [string, string, string];
      proxy.inject({ kind: 'trickle', afterBytes: 32 * 1024, everyMs: 900 }, objectsOf(a));
      let asked = performance.now();
      const body = await report(server, a);
      expect(performance.now() - asked).to.be.below(4000);
      expectProblem(body, 503);
      expect(body.body.detail).to.match(/sends too slowly \(less than 64 KiB per 1000 ms\)/);
      expectNoInternals(body.text, store, proxy);
      proxy.inject({ kind: 'trickle', afterBytes: 0, everyMs: 900 }, objectsOf(b));
      asked = performance.now();
      const head = await report(server, b);
      expect(performance.now() - asked).to.be.below(4000);
      expectProblem(head, 503);
      expect(head.body.detail).to.match(/did not answer within 1000 ms/);
      // nothing held: no download runs, no room reserved, no temporary file, and a third tenant is fetched
      const status = await storeStatus(server);
      expect(status.downloading).to.equal(false);
      expect(status.cache.reservedBytes).to.equal(0);
      expect(temporaryFiles(path.join(server.dataDir, 'kls'))).to.deep.equal([]);
      expect((await report(server, c)).status).to.equal(200);
      proxy.heal();
      for (const id of [a, b]) expect((await report(server, id)).status).to.equal(200);
    } finally {
      await server.close();
    }
  });

  it('answers a cut connection and a store that is down with 503 naming no address, and clears the error once the store is back', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
    const server = await start({}, log);
    try {
      await waitForSync(server);
      const [a, b] = ids as [string, string];
      proxy.inject({ kind: 'cut' }, objectsOf(a));
      const cut = await report(server, a);
      expectProblem(cut, 503);
      expect(cut.body.detail).to.match(/could not be reached/);
      expectNoInternals(cut.text, store, proxy);
      // the operator's line: the request id the problem carries, with the object key the client was not told
      const logged = lines.find((line) => line.msg === 'request failed' && line.reqId === cut.body.requestId);
      expect(logged, JSON.stringify(lines)).to.not.equal(undefined);
      expect(String(logged!.cause)).to.include(`${a.replace('.', '/')}/kls.sqlite`);
      proxy.heal();

      await store.stop();
      const down = await report(server, b);
      expectProblem(down, 503);
      expectNoInternals(down.text, store, proxy);
      const refresh = await call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      expect(refresh.status).to.equal(200);
      expect(refresh.body.error).to.match(/^object store unreachable: /);
      expectNoInternals(refresh.text, store, proxy);
      const health = await call(server.url, '/health');
      expect(health.body.status).to.equal('degraded');
      expectNoInternals(health.text, store, proxy);
      expectNoInternals(JSON.stringify(await storeStatus(server)), store, proxy);

      await store.restart();
      const back = await call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      expect(back.body.error).to.equal(undefined);
      for (const id of [a, b]) expect(await tenantOf(server, id)).to.deep.include({ status: 'pending', error: null });
      expect((await call(server.url, '/health')).body.status).to.equal('ok');
      expect((await report(server, a)).status).to.equal(200);
    } finally {
      await server.close();
    }
  });

  it('lists the store again once a download works after a listing failed, so /health is ok again without a refresh', async () => {
    const server = await start();
    try {
      await waitForSync(server);
      const [a] = ids as [string];
      await store.stop();
      const refresh = await call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      expect(refresh.body.error).to.match(/^object store unreachable: /);
      expect((await call(server.url, '/health')).body.status).to.equal('degraded');
      await store.restart();
      const listingsBefore = proxy.requests.filter((line) => LISTINGS.test(line)).length;
      expect((await report(server, a)).status).to.equal(200);
      const health = await waitUntil(async () => {
        const answer = await call(server.url, '/health');
        return answer.body.status === 'ok' ? answer.body : undefined;
      }, 10_000, '/health ok after the store answered a download');
      expect(health.errors).to.equal(0);
      expect((await storeStatus(server)).error).to.equal(null);
      expect(proxy.requests.filter((line) => LISTINGS.test(line)).length - listingsBefore).to.equal(1);
    } finally {
      await server.close();
    }
  });

  it('answers POST /api/refresh?wait=true within the time limits while the store hangs, and has the refreshes asked for during a listing share the one listing after it', async () => {
    const server = await start();
    try {
      await waitForSync(server);
      proxy.inject({ kind: 'hang' }, LISTINGS);
      const listingsBefore = proxy.requests.filter((line) => LISTINGS.test(line)).length;
      const asked = performance.now();
      const waited = call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      await waitUntil(() => proxy.faulted.length >= 1, 5000, 'the listing held by the store');
      // 20 refreshes while that listing runs: the listing may have read the store before what they ask for changed,
      // so they wait for it and then share one listing more
      const more = Promise.all(Array.from({ length: 20 }, () => call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' })));
      const answer = await waited;
      expect(performance.now() - asked).to.be.below(5000);
      expect(answer.status).to.equal(200);
      expect(answer.body).to.include({ status: 'completed' });
      expect(answer.body.error).to.match(/^object store unreachable: the object store did not answer within 1000 ms/);
      expectNoInternals(answer.text, store, proxy);
      for (const other of await more) {
        expect(other.status).to.equal(200);
        expect(other.body).to.include({ status: 'completed' });
      }
      expect(performance.now() - asked).to.be.below(10_000);
      expect(proxy.requests.filter((line) => LISTINGS.test(line)).length - listingsBefore).to.equal(2);
    } finally {
      await server.close();
    }
  });

  it('a broken sis.sqlite is an error until a valid one is uploaded and refreshed, with no restart', async () => {
    const server = await start();
    try {
      const [a] = ids as [string];
      const folder = a.replace('.', '/');
      await store.putBuffer(`${folder}/sis.sqlite`, Buffer.from('not a database\n'.repeat(100)));
      await call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      await report(server, a);
      const broken = await tenantOf(server, a);
      expect(broken.status).to.equal('error');
      expect(broken.error).to.match(/^sis\.sqlite: not an SQLite database/);
      expect((await call(server.url, '/health')).body.status).to.equal('degraded');
      // a listing with the same objects keeps the mark and fetches nothing
      store.resetTraffic();
      await call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      expect((await tenantOf(server, a)).status).to.equal('error');

      // the producer uploads a valid one: the ETag of sis.sqlite changes, and the tenant is fetched again
      await store.put(`${folder}/sis.sqlite`, path.join(server.dataDir, 'kls', folder, 'kls.sqlite'));
      await call(server.url, `/api/refresh?scope=tenant&tenant=${a}&wait=true`, { method: 'POST' });
      expect((await report(server, a)).status).to.equal(200);
      expect(await tenantOf(server, a)).to.deep.include({ status: 'ready', error: null, hasSis: true });
      expect((await call(server.url, '/health')).body.status).to.equal('ok');
    } finally {
      await server.close();
    }
  });

  it('an evicted tenant whose sis.sqlite is broken stays an error in store-status, not pending', async () => {
    const server = await start({ STORE_CACHE_MAX_MB: '2' });
    try {
      const [a, b, c] = ids as [string, string, string];
      await store.putBuffer(`${a.replace('.', '/')}/sis.sqlite`, Buffer.from('not a database\n'.repeat(100)));
      await call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      await report(server, a);
      expect((await tenantOf(server, a)).status).to.equal('error');
      // two more tenants of about 0.7 MB each: the least recently used, the broken one, makes room
      for (const id of [b, c]) expect((await report(server, id)).status).to.equal(200);
      const evicted = await waitUntil(async () => {
        const t = await tenantOf(server, a);
        return t.cache === 'evicted' ? t : undefined;
      }, 15_000, 'the broken tenant evicted');
      expect(evicted.status).to.equal('error');
      expect(evicted.error).to.match(/^sis\.sqlite: not an SQLite database/);
      const again = await report(server, a);
      expectProblem(again, 503);
      expect(again.body.detail).to.match(/sis\.sqlite: not an SQLite database/);
    } finally {
      await server.close();
    }
  });

  it('a cache file that cannot be read back after its download is a failed fetch, not a broken object, and names no path or errno', async () => {
    // the bytes go elsewhere while `misdirect` holds: the downloaded file is not there when it is checked
    let misdirect = true;
    const elsewhere = tempDir('ads-elsewhere-');
    const server = await startStoreModeServer(store, {
      env: { S3_ENDPOINT: proxy.endpoint, STORE_CACHE_MAX_MB: '1000', ...DEADLINES },
      storeFileSink: (file) => fs.createWriteStream(misdirect ? path.join(elsewhere.dir, path.basename(file)) : file),
    });
    try {
      await waitForSync(server);
      const [a] = ids as [string];
      const failed = await report(server, a);
      expectProblem(failed, 503);
      expect(failed.body.detail).to.match(/could not be fetched into the cache: the cache's files could not be written$/);
      expect(failed.headers.get('retry-after')).to.equal('5');
      expectNoInternals(failed.text, store, proxy);
      expect(failed.text).not.to.match(/ENOENT|no such file/);
      // not marked broken: the next use fetches it again
      misdirect = false;
      expect((await report(server, a)).status).to.equal(200);
    } finally {
      await server.close();
      elsewhere.remove();
    }
  });

  it('a valid SQLite file without the KLS tables is an error for its tenant and shows in /health', async () => {
    const server = await start();
    try {
      await waitForSync(server);
      const folder = tempDir('ads-other-');
      const other = path.join(folder.dir, 'other.sqlite');
      const db = new Database(other);
      db.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
      db.close();
      await store.put('ost/fremd/kls.sqlite', other);
      folder.remove();
      await call(server.url, '/api/refresh?scope=all&wait=true', { method: 'POST' });
      const answer = await report(server, 'ost.fremd');
      expectProblem(answer, 503);
      expect(answer.body.detail).to.match(/not a KLS file/);
      expect(await tenantOf(server, 'ost.fremd')).to.deep.include({ status: 'error' });
      expect((await call(server.url, '/health')).body.status).to.equal('degraded');
    } finally {
      await server.close();
    }
  });

  it('an object grown past the bound of the cache before its first use answers tenant-too-large at once', async () => {
    const server = await start({ STORE_CACHE_MAX_MB: '2' });
    try {
      await waitForSync(server);
      const [a] = ids as [string];
      const [pack, slug] = a.split('.') as [string, string];
      // listed at 0.7 MB; 3 MiB by the time it is first used
      await store.put(`${pack}/${slug}/kls.sqlite`, tenantVariant(pack, slug, 'grown', 'grown', 3 * 1024 * 1024));
      const asked = performance.now();
      const answer = await report(server, a);
      expectProblem(answer, 503);
      expect(answer.body.type).to.match(/tenant-too-large$/);
      // not after STORE_FETCH_WAIT_MS (8 s) spent waiting for room that can never be
      expect(performance.now() - asked).to.be.below(4000);
      expect((await tenantOf(server, a)).cache).to.equal('too-large');
    } finally {
      await server.close();
    }
  });
});

describe('shutdown of a store-mode server process while the store hangs', function () {
  this.timeout(60_000);

  it('ends within SHUTDOWN_TIMEOUT_MS with a download and a refresh held by the store', async () => {
    const store = await startObjectStore();
    const proxy = await startFaultProxy(store.endpoint);
    const data = tempDir('ads-faults-');
    try {
      const [a] = (await store.uploadDemo()) as [string];
      // time limits far beyond the test: only shutdown ends the requests the store holds
      const child = await spawnServer({
        ...store.env({ S3_ENDPOINT: proxy.endpoint }),
        DATA_DIR: data.dir,
        KLS_DIR: path.join(data.dir, 'kls'),
        GIT_WORKSPACES_DIR: '',
        STORE_CACHE_MAX_MB: '1000',
        STORE_FIRST_BYTE_TIMEOUT_MS: '600000',
        STORE_IDLE_TIMEOUT_MS: '600000',
        SHUTDOWN_TIMEOUT_MS: '2000',
      });
      try {
        await waitUntil(async () => (await call(child.url, '/api/store-status')).body.initialized === true, 15_000, 'the first listing');
        proxy.inject({ kind: 'hang' });
        const held = [report(child, a).catch(() => null), call(child.url, '/api/refresh?scope=all&wait=true', { method: 'POST' }).catch(() => null)];
        await waitUntil(() => proxy.faulted.length >= 2, 5000, 'a download and a listing held by the store');
        const asked = performance.now();
        child.child.kill('SIGTERM');
        const code = await child.exited;
        const ms = performance.now() - asked;
        expect(code).to.equal(0);
        expect(ms).to.be.below(2000 + 1500);
        await Promise.all(held);
      } finally {
        await child.kill();
      }
    } finally {
      await proxy.close();
      await store.close();
      data.remove();
    }
  });
});
