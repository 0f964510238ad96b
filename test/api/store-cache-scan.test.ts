import { expect } from 'chai';
import http from 'node:http';
import path from 'node:path';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { REPORT_KEY, tenantVariant } from '../helpers/store-cache.js';
import { spawnServer, type ServerProcess } from '../helpers/server-process.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';
import { tempDir, type TestServer } from '../helpers/server.js';

const SCANNED = 12;
const FETCHES_PER_MINUTE = 8;
/** About six tenants of 0.9 MB (file and search index): fewer than the scanner may fetch in a minute. */
const BOUND_MB = 6;
const HOT = 'desk.hot';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/**
 * A GET from a given loopback address (the limit key without sign-in). With `abortWhen`, the request is aborted as
 * soon as that state holds (polled every 5 ms until the answer arrives), and resolves to 'aborted'.
 */
function getFrom(localAddress: string, url: string, abortWhen?: () => boolean): Promise<Answer | 'aborted'> {
  return new Promise((resolve, reject) => {
    let watch: NodeJS.Timeout | undefined;
    const request = http.get(url, { localAddress, agent: false }, (res) => {
      clearInterval(watch);
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], body }));
    });
    request.on('error', (err) => (request.destroyed && abortWhen !== undefined ? resolve('aborted') : reject(err)));
    if (abortWhen !== undefined) {
      watch = setInterval(() => {
        if (!abortWhen()) return;
        clearInterval(watch);
        request.destroy();
      }, 5);
    }
  });
}

const reportOf = (server: TestServer, id: string, from: string): Promise<Answer> =>
  getFrom(from, `${server.url}/api/reports/${id}/${REPORT_KEY}`) as Promise<Answer>;

/**
 * One caller loops over tenants not in the cache while another reads a hot tenant: the hot tenant stays cached
 * (the scan churns the tenants read as rarely as the scanned ones), the scanner gets 429 with Retry-After past its fetches per minute,
 * and every other caller is served as before.
 */
describe('KLS store mode with a bounded cache: one caller scanning tenants', function () {
  this.timeout(120_000);
  let store: TestObjectStore;
  let server: TestServer;
  const scanned: string[] = [];

  beforeEach(async () => {
    store = await startObjectStore();
    await store.put('desk/hot/kls.sqlite', tenantVariant('ost', 'kantonsspital', 'Hot', `report of ${HOT}`));
    scanned.length = 0;
    for (let i = 0; i < SCANNED; i++) {
      const slug = `t${String(i).padStart(2, '0')}`;
      await store.put(`scan/${slug}/kls.sqlite`, tenantVariant('west', 'rehaklinik', `Tenant ${i}`, `report of scan.${slug}`));
      scanned.push(`scan.${slug}`);
    }
    server = await startStoreModeServer(store, {
      env: { STORE_CACHE_MAX_MB: String(BOUND_MB), TENANT_FETCHES_PER_MINUTE: String(FETCHES_PER_MINUTE), SEARCH_THREAD: 'off' },
    });
    await waitForSync(server);
  });
  afterEach(async () => {
    store.slowDownloads(null);
    await server.close();
    await store.close();
  });

  it('keeps the hot tenant cached through the scan, and refuses the scanner past its limit with 429, no one else', async () => {
    const cache = server.deps.store!.cache!;
    const unloaded: string[] = [];
    server.deps.tenants.onUnloaded((entry) => unloaded.push(entry.compositeId));
    // the hot tenant: fetched, then read again (a hit)
    for (let i = 0; i < 2; i++) expect((await reportOf(server, HOT, '127.0.0.1')).body).to.include(`report of ${HOT}`);
    await server.deps.searchIndexes.buildsSettled();
    expect(cache.budget.isReused(HOT)).to.equal(true);

    // the scanner fetches as many tenants as its limit lets it, more than the cache holds beside the hot tenant (a
    // least-recently-used cache would evict the hot tenant on the way)
    for (let i = 0; i < FETCHES_PER_MINUTE; i++) {
      const answer = await reportOf(server, scanned[i]!, '127.0.0.2');
      expect(answer.status, answer.body).to.equal(200);
      expect(answer.body).to.include(`report of ${scanned[i]}`);
      await server.deps.searchIndexes.buildsSettled();
    }
    expect(unloaded.filter((id) => id.startsWith('scan.')).length).to.be.greaterThan(0);
    expect(unloaded).not.to.include(HOT);

    // past its limit the scanner is refused before anything is fetched
    const refused = await reportOf(server, scanned[FETCHES_PER_MINUTE]!, '127.0.0.2');
    expect(refused.status).to.equal(429);
    expect(Number(refused.retryAfter)).to.be.within(1, 60);
    expect(JSON.parse(refused.body).detail).to.match(/^at most 8 fetches of tenants not in the cache per minute per caller; retry in \d+ s$/);
    expect(server.deps.store!.isBusy(scanned[FETCHES_PER_MINUTE]!)).to.equal(false);
    expect(server.deps.tenants.get(scanned[FETCHES_PER_MINUTE]!)!.handle).to.equal(null);
    // a tenant it has in the cache is still read
    expect((await reportOf(server, scanned[FETCHES_PER_MINUTE - 1]!, '127.0.0.2')).status).to.equal(200);

    // the hot tenant is still cached: read again without a fetch
    const fetchedBefore = store.traffic.objectGets;
    expect((await reportOf(server, HOT, '127.0.0.1')).body).to.include(`report of ${HOT}`);
    expect(store.traffic.objectGets).to.equal(fetchedBefore);
    expect(unloaded).not.to.include(HOT);

    // another caller fetches the tenant the scanner was refused
    const other = await reportOf(server, scanned[FETCHES_PER_MINUTE]!, '127.0.0.3');
    expect(other.status).to.equal(200);
    expect(other.body).to.include(`report of ${scanned[FETCHES_PER_MINUTE]}`);
  });

  it('keeps the hot tenant cached through a scan that reads each tenant twice', async () => {
    const unloaded: string[] = [];
    server.deps.tenants.onUnloaded((entry) => unloaded.push(entry.compositeId));
    for (let i = 0; i < 3; i++) expect((await reportOf(server, HOT, '127.0.0.1')).body).to.include(`report of ${HOT}`);
    await server.deps.searchIndexes.buildsSettled();
    // each scanned tenant read twice (a hit: it is in steady use as far as one caller can tell), more of them than
    // the cache holds beside the hot tenant; the hot tenant is read more often than each of them
    for (let i = 0; i < FETCHES_PER_MINUTE; i++) {
      for (let read = 0; read < 2; read++) expect((await reportOf(server, scanned[i]!, '127.0.0.2')).body).to.include(`report of ${scanned[i]}`);
      await server.deps.searchIndexes.buildsSettled();
    }
    expect(unloaded.filter((id) => id.startsWith('scan.')).length).to.be.greaterThan(0);
    expect(unloaded).not.to.include(HOT);
    const fetchedBefore = store.traffic.objectGets;
    expect((await reportOf(server, HOT, '127.0.0.1')).body).to.include(`report of ${HOT}`);
    expect(store.traffic.objectGets).to.equal(fetchedBefore);
  });

  it('bounds what aborted requests leave behind by the limit: a fetch runs on, the next past the limit is refused', async () => {
    // downloads slow enough to be under way when their request is aborted
    store.slowDownloads(20);
    store.resetTraffic();
    const started: string[] = [];
    for (const id of scanned) {
      const answer = await getFrom('127.0.0.4', `${server.url}/api/reports/${id}/${REPORT_KEY}`, () => server.deps.store!.isBusy(id));
      if (answer === 'aborted') {
        started.push(id);
        continue;
      }
      expect(answer.status).to.equal(429);
      expect(Number(answer.retryAfter)).to.be.within(1, 60);
      break;
    }
    expect(started).to.have.length(FETCHES_PER_MINUTE);
    // the fetches of the aborted requests run on and end; nothing more was fetched for that caller
    store.slowDownloads(null);
    await waitUntil(() => scanned.every((id) => !server.deps.store!.isBusy(id)), 60_000, 'the fetches to end');
    expect(store.traffic.objectGets).to.equal(FETCHES_PER_MINUTE);
    expect(server.deps.tenants.get(scanned[FETCHES_PER_MINUTE]!)!.handle).to.equal(null);
    // the aborted requests stopped waiting when their clients left: none of them read its tenant once it arrived
    for (const id of started) expect(server.deps.store!.cache!.budget.usesOf(id), id).to.equal(0);
    expect(store.traffic.objectGets).to.equal(FETCHES_PER_MINUTE);
  });
});

describe('KLS store mode with a bounded cache: the fetch limit across instances on one PostgreSQL', function () {
  this.timeout(120_000);
  let postgres: TestPostgres;
  let store: TestObjectStore;
  const instances: ServerProcess[] = [];
  const data = tempDir('ads-fetch-limit-');

  before(async () => {
    [postgres, store] = await Promise.all([startPostgres(), startObjectStore()]);
    for (let i = 0; i < 6; i++) await store.put(`scan/t${i}/kls.sqlite`, tenantVariant('west', 'rehaklinik', `Tenant ${i}`, `report of scan.t${i}`));
    const appDb = await postgres.createDatabase('fetches');
    // processes of their own, as operators run them: each its own cache, one app database
    for (const name of ['a', 'b']) {
      const dataDir = path.join(data.dir, name);
      instances.push(
        await spawnServer(store.env({ DATA_DIR: dataDir, KLS_DIR: path.join(dataDir, 'kls'), GIT_WORKSPACES_DIR: '', APP_DB_URL: appDb, STORE_CACHE_MAX_MB: '100', TENANT_FETCHES_PER_MINUTE: '4' })),
      );
    }
    for (const instance of instances) {
      await waitUntil(async () => (await getFrom('127.0.0.1', `${instance.url}/health/ready`).then((a) => (a as Answer).status)) === 200, 30_000, 'readiness');
    }
  });
  after(async () => {
    for (const instance of instances) await instance.stop();
    await store?.close();
    await postgres?.close();
    data.remove();
  });

  it('gives a caller TENANT_FETCHES_PER_MINUTE fetches across the instances, then 429 on each', async () => {
    const [a, b] = instances as [ServerProcess, ServerProcess];
    const read = (at: ServerProcess, id: string, from: string) => getFrom(from, `${at.url}/api/reports/${id}/${REPORT_KEY}`) as Promise<Answer>;
    for (let i = 0; i < 4; i++) expect((await read(i % 2 === 0 ? a : b, `scan.t${i}`, '127.0.0.5')).status, `scan.t${i}`).to.equal(200);
    for (const instance of [a, b]) {
      const refused = await read(instance, 'scan.t4', '127.0.0.5');
      expect(refused.status).to.equal(429);
      expect(Number(refused.retryAfter)).to.be.within(1, 60);
    }
    expect((await read(b, 'scan.t5', '127.0.0.6')).status).to.equal(200);
  });
});
