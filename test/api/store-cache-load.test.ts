import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call } from '../helpers/http.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { bytesOnDisk, REPORT_KEY, tenantVariant } from '../helpers/store-cache.js';
import { startStoreModeServer, waitUntil } from '../helpers/store-mode.js';
import type { TestServer } from '../helpers/server.js';

const TENANTS = 50;
const CLIENTS = 8;
/** Requests per client: enough for every tenant to be fetched, evicted and fetched again several times. */
const REQUESTS_PER_CLIENT = 40;
const BOUND_MB = 10;

/** A deterministic sequence of numbers in [0, 1) (mulberry32), so that a failing run can be repeated. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 50 tenants in the store, a cache that holds about 10 of them (each ~0.9 MB with its search index), 8 clients
 * reading across all 50: only 503s with Retry-After may fail, the cache never passes its bound on disk (sampled
 * every 100 ms and after every answer, temporary files included), and every answer comes from its tenant's
 * complete file (the fetch limit per caller is off: the eight clients share one address). The minute-long run
 * with its figures is the bench's (`npm run bench -- store-cache`).
 */
describe('KLS store mode with a bounded cache under load', function () {
  this.timeout(300_000);
  let store: TestObjectStore;
  let server: TestServer;
  const ids: string[] = [];

  before(async () => {
    store = await startObjectStore();
    const demo = [['ost', 'kantonsspital'], ['ost', 'rehaklinik'], ['west', 'hopital-cantonal'], ['west', 'rehaklinik']] as const;
    for (let i = 0; i < TENANTS; i++) {
      const [pack, slug] = demo[i % demo.length]!;
      const id = `load.t${String(i).padStart(2, '0')}`;
      await store.put(`load/t${String(i).padStart(2, '0')}/kls.sqlite`, tenantVariant(pack, slug, `Tenant ${i}`, `report of ${id}`));
      ids.push(id);
    }
    server = await startStoreModeServer(store, { env: { STORE_CACHE_MAX_MB: String(BOUND_MB), STORE_CONCURRENCY: '4', TENANT_FETCHES_PER_MINUTE: '0' } });
    await waitUntil(async () => (await call(server.url, '/health/ready')).status === 200, 30_000, 'readiness');
  });
  after(async () => {
    await server?.close();
    await store?.close();
  });

  it('answers every read from a complete file or with 503 and Retry-After, within its bound on disk', async () => {
    const klsDir = server.deps.config.klsDir;
    const bound = BOUND_MB * 1024 * 1024;
    const samples: number[] = [];
    const sample = (): void => {
      samples.push(bytesOnDisk(klsDir));
      const budget = server.deps.store!.cache!.budget;
      samples.push(budget.usedBytes + budget.reservedBytes);
    };
    const sampler = setInterval(sample, 100);
    const failures: string[] = [];
    let ok = 0;
    let retries = 0;
    try {
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          const next = random(client + 1);
          for (let i = 0; i < REQUESTS_PER_CLIENT; i++) {
            const id = ids[Math.floor(next() * ids.length)]!;
            const res = await call(server.url, `/api/reports/${id}/${REPORT_KEY}`);
            sample();
            if (res.status === 200 && res.text.includes(`report of ${id}\n`)) ok += 1;
            else if (res.status === 503 && Number(res.headers.get('retry-after')) > 0) retries += 1;
            else failures.push(`${id}: ${res.status} ${res.text.slice(0, 160)}`);
          }
        }),
      );
    } finally {
      clearInterval(sampler);
    }
    expect(failures).to.deep.equal([]);
    expect(ok + retries).to.equal(CLIENTS * REQUESTS_PER_CLIENT);
    expect(ok).to.be.greaterThan(retries);
    expect(Math.max(...samples)).to.be.at.most(bound);
    // the index builds queued by the last fetches may still make room: once they are over, the cache stands still
    await server.deps.searchIndexes.buildsSettled();
    const status = (await call(server.url, '/api/store-status?include_cache=true')).body;
    expect(status.cache.evictions).to.be.greaterThan(0);
    // every file in the cache is the complete object it was fetched from
    for (const tenant of status.tenants.filter((t: { cache: string }) => t.cache === 'cached')) {
      const [, slug] = (tenant.compositeId as string).split('.');
      const object = await store.client.statObject(store.bucket, `load/${slug}/kls.sqlite`);
      expect(fs.statSync(path.join(klsDir, 'load', slug!, 'kls.sqlite')).size).to.equal(object.size);
    }
  });
});
