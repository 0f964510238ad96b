import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { sharedPostgres } from '../helpers/postgres.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { bytesOnDisk, REPORT_KEY, tenantVariant } from '../helpers/store-cache.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';
import { spawnServer } from '../helpers/server-process.js';
import { tempDir, type TestServer } from '../helpers/server.js';

const COLD = 6;

interface Answer {
  status: number;
  retryAfter: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** A GET from a given loopback address (the limit key without sign-in). */
function getFrom(localAddress: string, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { localAddress, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], contentType: res.headers['content-type'], body }));
      })
      .on('error', reject);
  });
}

const reportOf = (url: string, id: string, from: string): Promise<Answer> => getFrom(from, `${url}/api/reports/${id}/${REPORT_KEY}`);

/**
 * Requests for one tenant not in the cache that arrive together share one fetch, and only the request that starts
 * it is charged for it: the others join, whoever they are and however many there are.
 */
/** The server under test: in this process (SQLite app database), or a process of its own on a PostgreSQL app database. */
interface Under {
  url: string;
  close(): Promise<void>;
}

for (const appDb of ['sqlite', 'postgres'] as const) {
  // With PostgreSQL each admission is a round trip to the database: requests that arrive meanwhile must not each be
  // charged. (Its server runs in a process of its own, as operators run it.)
  describe(`KLS store mode with a bounded cache: many first requests for one cold tenant (${appDb} app database)`, function () {
    this.timeout(120_000);
    let store: TestObjectStore;
    let server: Under;
    const data = tempDir('ads-cold-');

    beforeEach(async () => {
      store = await startObjectStore();
      for (let i = 0; i < COLD; i++) await store.put(`cold/t${i}/kls.sqlite`, tenantVariant('west', 'rehaklinik', `Tenant ${i}`, `report of cold.t${i}`));
      const env = { STORE_CACHE_MAX_MB: '100', TENANT_FETCHES_PER_MINUTE: '1', SEARCH_THREAD: 'off' };
      if (appDb === 'sqlite') {
        const inProcess = await startStoreModeServer(store, { env });
        server = { url: inProcess.url, close: () => inProcess.close() };
      } else {
        const dataDir = fs.mkdtempSync(path.join(data.dir, 'instance-'));
        const appDbUrl = await (await sharedPostgres()).createDatabase('cold');
        const child = await spawnServer(store.env({ ...env, DATA_DIR: dataDir, KLS_DIR: path.join(dataDir, 'kls'), GIT_WORKSPACES_DIR: '', APP_DB_URL: appDbUrl }));
        server = { url: child.url, close: () => child.stop() };
      }
      await waitUntil(async () => {
        const status = await getFrom('127.0.0.1', `${server.url}/api/store-status`);
        const body = JSON.parse(status.body) as { initialized: boolean; downloading: boolean };
        return body.initialized && !body.downloading;
      }, 30_000, 'the store sync');
    });
    afterEach(async () => {
      store.slowDownloads(null);
      await server.close();
      await store.close();
    });
    after(() => data.remove());

    it('from one caller: one fetch, one charge, every request answered 200', async () => {
      store.slowDownloads(5);
      const answers = await Promise.all(Array.from({ length: 8 }, () => reportOf(server.url, 'cold.t0', '127.0.0.2')));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(8).fill(200));
      expect(store.traffic.objectGets).to.equal(1);
      // its one fetch of the minute is spent
      const refused = await reportOf(server.url, 'cold.t1', '127.0.0.2');
      expect(refused.status).to.equal(429);
      expect(Number(refused.retryAfter)).to.be.within(1, 60);
      expect(refused.contentType).to.match(/^application\/problem\+json/);
    });

    it('from several callers: the one whose request started the fetch is charged, no one else', async () => {
      store.slowDownloads(5);
      const callers = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];
      const answers = await Promise.all(callers.map((from) => reportOf(server.url, 'cold.t0', from)));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(callers.length).fill(200));
      expect(store.traffic.objectGets).to.equal(1);
      store.slowDownloads(null);
      // each caller then fetches another tenant: exactly one of them has spent its fetch of the minute
      const next = await Promise.all(callers.map((from, i) => reportOf(server.url, `cold.t${i + 1}`, from)));
      expect(next.filter((a) => a.status === 429).length, next.map((a) => a.status).join(',')).to.equal(1);
      expect(next.filter((a) => a.status === 200).length).to.equal(callers.length - 1);
    });
  });
}


/** A protected tenant held for good (an export that never ends) and the fetches that need its room; a fetch the server started and the request that joins it. */
describe('KLS store mode with a bounded cache: a tenant held for good, and fetches the server starts', function () {
  this.timeout(120_000);
  let store: TestObjectStore;
  let inProcess: TestServer;

  beforeEach(async () => {
    store = await startObjectStore();
    for (let i = 0; i < 3; i++) await store.put(`cold/t${i}/kls.sqlite`, tenantVariant('west', 'rehaklinik', `Tenant ${i}`, `report of cold.t${i}`));
  });
  afterEach(async () => {
    store.slowDownloads(null);
    await inProcess.close();
    await store.close();
  });

  it('a write that needs the room of a leased protected tenant answers 503 within STORE_FETCH_WAIT_MS, gives its room back, and gets it once the lease ends', async () => {
    inProcess = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '1', STORE_FETCH_WAIT_MS: '1000', TENANT_FETCHES_PER_MINUTE: '100', SEARCH_THREAD: 'off' } });
    await waitForSync(inProcess);
    const cache = inProcess.deps.store!.cache!;
    for (let i = 0; i < 2; i++) expect((await reportOf(inProcess.url, 'cold.t0', '127.0.0.2')).status).to.equal(200);
    await inProcess.deps.searchIndexes.buildsSettled();
    expect(cache.budget.isReused('cold.t0')).to.equal(true);
    const held = await inProcess.deps.tenants.lease(inProcess.deps.tenants.get('cold.t0')!);
    try {
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        const refused = await reportOf(inProcess.url, 'cold.t1', '127.0.0.3');
        const ms = performance.now() - started;
        expect(refused.status, refused.body).to.equal(503);
        expect(Number(refused.retryAfter)).to.be.within(1, 60);
        expect(ms).to.be.below(5_000);
        // the download that waited for room gives up within its wait too, and leaves nothing reserved
        await waitUntil(() => !inProcess.deps.store!.isBusy('cold.t1'), 10_000, 'the waiting download to give up');
        expect(cache.budget.reservedBytes).to.equal(0);
        expect(cache.budget.usedBytes).to.be.at.most(cache.budget.maxBytes);
      }
      expect(cache.budget.isReused('cold.t0')).to.equal(true);
    } finally {
      held.release();
    }
    const served = await reportOf(inProcess.url, 'cold.t1', '127.0.0.3');
    expect(served.status, served.body).to.equal(200);
    expect(served.body).to.include('report of cold.t1');
  });

  it('a request that joins a fetch of STORE_WARM is charged nothing', async () => {
    store.slowDownloads(5);
    inProcess = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100', STORE_WARM: 'cold.t0', TENANT_FETCHES_PER_MINUTE: '1', SEARCH_THREAD: 'off' } });
    await waitUntil(() => inProcess.deps.store!.isBusy('cold.t0'), 15_000, 'the warm fetch');
    expect((await reportOf(inProcess.url, 'cold.t0', '127.0.0.2')).status).to.equal(200);
    store.slowDownloads(null);
    // its one fetch of the minute is still its own
    expect((await reportOf(inProcess.url, 'cold.t1', '127.0.0.2')).status).to.equal(200);
    expect((await reportOf(inProcess.url, 'cold.t2', '127.0.0.2')).status).to.equal(429);
  });
});

/**
 * A cache about one tenant large: STORE_WARM fetches nothing that would not fit with its index, the tenant is read on
 * first use, and a search whose index can never fit beside it says so (no Retry-After), rather than 503 "retry later"
 * for good.
 */
describe('KLS store mode with a bounded cache about one tenant large', function () {
  this.timeout(60_000);
  it('STORE_WARM evicts and fetches nothing; the tenant is read; its search is tenant-too-large without Retry-After', async () => {
    const store = await startObjectStore();
    // 0.9 MB: the file fits in 1 MiB, its index (room claimed: half the file) beside it does not
    await store.put('cold/t0/kls.sqlite', tenantVariant('west', 'rehaklinik', 'Tenant 0', 'report of cold.t0', 200_000));
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '1', STORE_WARM: 'cold.*', SEARCH_THREAD: 'off' } });
    try {
      const cache = server.deps.store!.cache!;
      await server.deps.store!.warmed();
      expect(store.traffic.objectGets).to.equal(0);
      expect(cache.evictions).to.equal(0);
      const report = await reportOf(server.url, 'cold.t0', '127.0.0.2');
      expect(report.status).to.equal(200);
      for (let i = 0; i < 2; i++) {
        const search = await getFrom('127.0.0.2', `${server.url}/api/jumpbar?tenant=cold.t0&q=fall`);
        expect(search.status).to.equal(503);
        expect(search.retryAfter).to.equal(undefined);
        expect(search.contentType).to.match(/^application\/problem\+json/);
        const problem = JSON.parse(search.body) as { type: string; detail: string };
        expect(problem.type).to.match(/\/tenant-too-large$/);
        expect(problem.detail).to.match(/^the search index of tenant "cold\.t0" does not fit beside its files \([\d.]+ MB\) in the whole cache \(STORE_CACHE_MAX_MB=1\)/);
      }
      expect(cache.budget.usedBytes + cache.budget.reservedBytes).to.be.at.most(cache.budget.maxBytes);
      expect(cache.budget.reservedBytes).to.equal(0);
    } finally {
      await server.close();
      await store.close();
    }
  });
});

describe('KLS store mode with a bounded cache on a PostgreSQL app database, in this process', function () {
  this.timeout(120_000);
  it('answers a fetch past the limit 429 with Retry-After and a problem body, not 500', async () => {
    const store = await startObjectStore();
    for (let i = 0; i < 2; i++) await store.put(`cold/t${i}/kls.sqlite`, tenantVariant('west', 'rehaklinik', `Tenant ${i}`, `report of cold.t${i}`));
    const appDbUrl = await (await sharedPostgres()).createDatabase('inproc');
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '100', TENANT_FETCHES_PER_MINUTE: '1', SEARCH_THREAD: 'off', APP_DB_URL: appDbUrl } });
    try {
      await waitForSync(server);
      expect((await reportOf(server.url, 'cold.t0', '127.0.0.2')).status).to.equal(200);
      const refused = await reportOf(server.url, 'cold.t1', '127.0.0.2');
      expect(refused.status, refused.body).to.equal(429);
      expect(Number(refused.retryAfter)).to.be.within(1, 60);
      expect(refused.contentType).to.match(/^application\/problem\+json/);
      expect(JSON.parse(refused.body).detail).to.match(/^at most 1 fetches of tenants not in the cache per minute per caller; retry in \d+ s$/);
    } finally {
      await server.close();
      await store.close();
    }
  });
});

describe('KLS store mode with a bounded cache: a cached tenant folder replaced by a file', function () {
  this.timeout(120_000);
  it('keeps the tenant counted, evicts it (the file goes) when room is needed, stays within its bound, and fetches it again', async () => {
    const store = await startObjectStore();
    // 0.7 MB each, but the last 1.4 MB: beside the first, read again (protected), it fits only once that one goes
    for (let i = 0; i < 4; i++) await store.put(`cold/t${i}/kls.sqlite`, tenantVariant('west', 'rehaklinik', `Tenant ${i}`, `report of cold.t${i}`, i === 3 ? 700_000 : 0));
    const outside = tempDir('ads-aside-');
    const server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: '2', TENANT_FETCHES_PER_MINUTE: '100', SEARCH_THREAD: 'off' } });
    try {
      await waitForSync(server);
      const cache = server.deps.store!.cache!;
      const klsDir = server.deps.config.klsDir;
      expect((await reportOf(server.url, 'cold.t0', '127.0.0.2')).status).to.equal(200);
      const entry = server.deps.tenants.get('cold.t0')!;
      const counted = cache.budget.chargeOf('cold.t0')!;
      // root reads a chmod 000 folder anyway: a file in its place cannot be listed by anyone
      fs.renameSync(entry.dir, path.join(outside.dir, 't0'));
      fs.writeFileSync(entry.dir, 'not a folder');
      // a search (a hit: the tenant moves to the protected segment) tries to build its index in its folder, fails,
      // and counts the folder again
      const search = await getFrom('127.0.0.2', `${server.url}/api/jumpbar?tenant=cold.t0&q=fall`);
      expect(search.status).to.equal(503);
      await server.deps.searchIndexes.buildsSettled();
      expect(cache.budget.chargeOf('cold.t0')).to.equal(counted);
      for (const id of ['cold.t1', 'cold.t2', 'cold.t3']) {
        expect((await reportOf(server.url, id, '127.0.0.2')).status, id).to.equal(200);
        expect(cache.budget.usedBytes + cache.budget.reservedBytes).to.be.at.most(cache.budget.maxBytes);
        expect(bytesOnDisk(klsDir)).to.be.at.most(cache.budget.maxBytes);
      }
      // the last one's room could be made only by evicting it: its file went, and its count with it
      expect(fs.existsSync(entry.dir)).to.equal(false);
      expect(cache.budget.chargeOf('cold.t0')).to.equal(undefined);
      const again = await reportOf(server.url, 'cold.t0', '127.0.0.2');
      expect(again.status).to.equal(200);
      expect(again.body).to.include('report of cold.t0');
    } finally {
      await server.close();
      await store.close();
      outside.remove();
    }
  });
});
