// The bounded store cache (STORE_CACHE_MAX_MB, docs/object-store.md) on the built server against s3rver on loopback:
//  1. 50 tenants in the store, a cache that holds 10 of them, 8 clients reading reports across all 50 for a minute
//     (STORE_CACHE_SECONDS): only 503 with Retry-After may fail, the cache never above its bound on disk (sampled every
//     100 ms, temporary files included), every answer from its tenant's complete file; hits, misses, evictions and
//     fetch times from /metrics.
//  2. 1,000 tenants in the store, an empty cache: the time from the process's start to readiness 200 (goal ≤ 3 s),
//     with no object downloaded (s3rver in a child process with OpenSSL's legacy provider: its listing tokens are DES).
//  3. The first request for a 100 MB tenant against the time of its download alone by a process of its own (goal ≤
//     download + 20 %), in three rounds (medians), with cached tenants' reads open loop meanwhile (their p99 beside
//     the same load without a fetch, goal ≤ 50 ms). s3rver runs in a child process here too, which the server and the
//     download alone both reach: in the bench's process it would share an event loop with the open-loop load.
//  4. A refresh sent to one of two instances on one PostgreSQL (embedded) until the other serves the new generation
//     (goal ≤ 5 s), five times.
// `npm run bench -- store-cache`; the figures of a full run (60 s) go to docs/benchmarks.md (section `store-cache`).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildBigTenant } from '../test/helpers/big-tenant.js';
import { buildKls } from '../test/helpers/kls-builder.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { startObjectStore, type TestObjectStore } from '../test/helpers/s3rver.js';
import { startObjectStoreProcess } from '../test/helpers/s3rver-process.js';
import { bytesOnDisk, REPORT_KEY, tenantVariant } from '../test/helpers/store-cache.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { writeBenchSection } from './report.js';
import { sleep, startServer, waitFor, type BenchServer } from './server.js';
import { fmt, median } from './stats.js';

const SECONDS = Number(process.env['STORE_CACHE_SECONDS'] ?? 60);
const TENANTS = 50;
const CLIENTS = 8;
const BOUND_MB = 10;
const READY_TENANTS = 1000;
const BIG_ROWS = 920_000;
const GOAL_READY_MS = 3000;
const GOAL_COLD_RATIO = 1.2;
const GOAL_P99_MS = 50;
const GOAL_REACH_MS = 5000;
const OPEN_LOOP_RATE = 100;
const COLD_ROUNDS = 3;

const s3Env = (store: { env(extra?: Record<string, string>): Record<string, string> }, dataDir: string, extra: Record<string, string> = {}): Record<string, string> => ({
  ...store.env(extra),
  DATA_DIR: dataDir,
});

async function get(url: string): Promise<{ status: number; text: string; retryAfter: string | null }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') };
}

/** A counter's value in a Prometheus exposition (0 when absent). */
const counter = (metrics: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);

/** The `le` bucket at which a histogram's cumulative count passes `share` of its count: an upper bound of that percentile. */
function histogramBound(metrics: string, name: string, share: number): string {
  const count = counter(metrics, `${name}_count`);
  for (const match of metrics.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm'))) {
    if (Number(match[2]) >= share * count) return match[1] === '+Inf' ? '> 250' : `≤ ${match[1]}`;
  }
  return 'n/a';
}

interface LoadFigures {
  requests: number;
  ok: number;
  retries: number;
  failures: string[];
  maxBytes: number;
  samples: number;
  metrics: string;
}

/** Phase 1: 8 clients over 50 tenants for SECONDS, the cache sampled every 100 ms. */
/** Puts the TENANTS load tenants (`load/tNN/kls.sqlite`, each with a report that names it) with `put`; answers their IDs. */
async function putLoadTenants(put: (key: string, file: string) => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  const demo = [['ost', 'kantonsspital'], ['ost', 'rehaklinik'], ['west', 'hopital-cantonal'], ['west', 'rehaklinik']] as const;
  for (let i = 0; i < TENANTS; i++) {
    const [pack, slug] = demo[i % demo.length]!;
    const name = `t${String(i).padStart(2, '0')}`;
    const file = tenantVariant(pack, slug, `Tenant ${i}`, `report of load.${name}`);
    await put(`load/${name}/kls.sqlite`, file);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    ids.push(`load.${name}`);
  }
  return ids;
}

async function loadPhase(store: TestObjectStore, work: string): Promise<LoadFigures> {
  const ids = await putLoadTenants((key, file) => store.put(key, file));
  const dataDir = path.join(work, 'load');
  const server = await startServer(s3Env(store, dataDir, { STORE_CACHE_MAX_MB: String(BOUND_MB) }));
  try {
    while ((await get(`${server.url}/health/ready`)).status !== 200) await sleep(20);
    const klsDir = path.join(dataDir, 'kls');
    let maxBytes = 0;
    let samples = 0;
    const sampler = setInterval(() => {
      maxBytes = Math.max(maxBytes, bytesOnDisk(klsDir));
      samples += 1;
    }, 100);
    const figures: LoadFigures = { requests: 0, ok: 0, retries: 0, failures: [], maxBytes: 0, samples: 0, metrics: '' };
    const end = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < end) {
          const id = ids[Math.floor(Math.random() * ids.length)]!;
          const res = await get(`${server.url}/api/reports/${id}/${REPORT_KEY}`);
          figures.requests += 1;
          if (res.status === 200 && res.text.includes(`report of ${id}\n`)) figures.ok += 1;
          else if (res.status === 503 && Number(res.retryAfter) > 0) figures.retries += 1;
          else figures.failures.push(`${id}: ${res.status} ${res.text.slice(0, 120)}`);
        }
      }),
    );
    clearInterval(sampler);
    figures.maxBytes = maxBytes;
    figures.samples = samples;
    figures.metrics = (await get(`${server.url}/metrics`)).text;
    return figures;
  } finally {
    await server.stop();
  }
}

/** Phase 2: the time from a new instance's start to readiness with READY_TENANTS tenants in the store and an empty cache. */
async function readyPhase(work: string): Promise<{ readyMs: number; listingMs: number; objectGets: number; tenants: number }> {
  const store = await startObjectStoreProcess();
  try {
    const small = path.join(work, 'small.sqlite');
    buildKls(small, 'small');
    for (let first = 0; first < READY_TENANTS; first += 16) {
      await Promise.all(
        Array.from({ length: Math.min(16, READY_TENANTS - first) }, (_, i) => store.client.fPutObject(store.bucket, `group/h${String(first + i).padStart(4, '0')}/kls.sqlite`, small)),
      );
    }
    await store.resetTraffic();
    const started = performance.now();
    const server = await startServer(s3Env(store, path.join(work, 'ready'), { STORE_CACHE_MAX_MB: '1024' }));
    try {
      while ((await get(`${server.url}/health/ready`)).status !== 200) await sleep(10);
      const readyMs = performance.now() - started;
      const listingMs = Number(server.logged('first sync with the object store finished')[0]?.['ms'] ?? NaN);
      const tenants = (JSON.parse((await get(`${server.url}/api/store-status`)).text) as { tenants: unknown[] }).tenants.length;
      return { readyMs, listingMs, objectGets: (await store.traffic()).objectGets, tenants };
    } finally {
      await server.stop();
    }
  } finally {
    await store.close();
  }
}

interface ColdFigures {
  mb: number;
  /** Per round: the download alone, the first request, and the cached reads while it ran. */
  downloadMs: number[];
  firstMs: number[];
  alone: OpenLoopResult;
  during: OpenLoopResult[];
}

/**
 * Phase 3, COLD_ROUNDS rounds: a 100 MB tenant downloaded alone by a process of its own, then the first request for
 * another copy of it (a tenant of its own) while the cached tenants' summaries run open loop; the same load without
 * a fetch first.
 */
async function coldPhase(work: string): Promise<ColdFigures> {
  // s3rver in a process of its own: in this one it would share an event loop with the open-loop load, and the
  // server's download would wait for the load's timers while the download alone (no load) would not
  const store = await startObjectStoreProcess();
  let server: BenchServer | null = null;
  try {
    const big = path.join(work, 'big.sqlite');
    buildBigTenant(big, 'big', BIG_ROWS);
    for (let round = 0; round < COLD_ROUNDS; round++) await store.client.fPutObject(store.bucket, `cold/big${round}/kls.sqlite`, big);
    await putLoadTenants((key, file) => store.client.fPutObject(store.bucket, key, file).then(() => undefined));
    const mb = fs.statSync(big).size / 1048576;
    const running = await startServer(s3Env(store, path.join(work, 'cold'), { STORE_CACHE_MAX_MB: '2048', STORE_WARM: 'load.*', STORE_FETCH_WAIT_MS: '600000' }));
    server = running;
    // the warm tenants fetched and their search indexes built: nothing of the start runs beside the loads
    await waitFor('the warm tenants', () => running.logged('search index built').length >= TENANTS, 120_000);
    const paths = Array.from({ length: TENANTS }, (_, i) => `/api/jumpbar?mode=summary&tenant=load.t${String(i).padStart(2, '0')}`);
    const alone = await openLoop({ url: running.url, paths, rate: OPEN_LOOP_RATE, seconds: 10, warmupSeconds: 2 });
    const figures: ColdFigures = { mb, downloadMs: [], firstMs: [], alone, during: [] };
    for (let round = 0; round < COLD_ROUNDS; round++) {
      const key = `cold/big${round}/kls.sqlite`;
      figures.downloadMs.push(await downloadAlone(store, key, path.join(work, `download-${round}.sqlite`)));
      const load = openLoop({ url: running.url, paths, rate: OPEN_LOOP_RATE, seconds: 8, warmupSeconds: 1 });
      await sleep(2000);
      const started = performance.now();
      const first = await get(`${running.url}/api/jumpbar?mode=summary&tenant=cold.big${round}`);
      figures.firstMs.push(performance.now() - started);
      if (first.status !== 200) throw new Error(`the first request for the 100 MB tenant answered ${first.status}: ${first.text.slice(0, 200)}`);
      figures.during.push(await load);
    }
    return figures;
  } finally {
    await server?.stop();
    await store.close();
  }
}

/**
 * The time a process of its own takes to download `key` into `file` with the minio client, as the server does, from
 * the same s3rver process as the server's downloads.
 */
function downloadAlone(store: { endpoint: string; bucket: string }, key: string, file: string): Promise<number> {
  const url = new URL(store.endpoint);
  const script = `
    import * as Minio from 'minio';
    const client = new Minio.Client({ endPoint: ${JSON.stringify(url.hostname)}, port: ${url.port}, useSSL: false, accessKey: 'S3RVER', secretKey: 'S3RVER', region: 'us-east-1', pathStyle: true });
    const started = performance.now();
    await client.fGetObject(${JSON.stringify(store.bucket)}, ${JSON.stringify(key)}, ${JSON.stringify(file)});
    console.log(performance.now() - started);`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: path.join(import.meta.dirname, '..') }, (err, stdout) => {
      fs.rmSync(file, { force: true });
      if (err !== null) reject(err);
      else resolve(Number(stdout.trim()));
    });
  });
}

/** Phase 4: five refreshes sent to one of two instances on one PostgreSQL, until the other serves the new generation. */
async function reachPhase(store: TestObjectStore, work: string): Promise<number[]> {
  const postgres = await startPostgres();
  const servers: BenchServer[] = [];
  try {
    const appDb = await postgres.createDatabase('bench');
    for (const name of ['a', 'b']) servers.push(await startServer({ ...s3Env(store, path.join(work, `reach-${name}`), { STORE_CACHE_MAX_MB: '100' }), APP_DB_URL: appDb }));
    const [a, b] = servers as [BenchServer, BenchServer];
    for (const server of servers) while (!(await get(`${server.url}/api/store-status?include_cache=true`)).text.includes('"refreshes":"shared"')) await sleep(20);
    const generation = async (server: BenchServer): Promise<number> => (JSON.parse((await get(`${server.url}/api/db-status/load.t00`)).text) as { generation: number }).generation;
    await get(`${a.url}/api/reports/load.t00/${REPORT_KEY}`);
    await get(`${b.url}/api/reports/load.t00/${REPORT_KEY}`);
    const reach: number[] = [];
    for (let round = 1; round <= 5; round++) {
      await store.put('load/t00/kls.sqlite', tenantVariant('ost', 'kantonsspital', `Tenant 0 round ${round}`, `report of load.t00 round ${round}`));
      const before = await generation(b);
      const started = performance.now();
      await fetch(`${a.url}/api/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scope: 'tenant', tenant: 'load.t00' }) });
      while ((await generation(b)) <= before) await sleep(5);
      reach.push(performance.now() - started);
    }
    return reach;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await postgres.close();
  }
}

export async function run(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-store-cache-'));
  const store = await startObjectStore();
  try {
    const load = await loadPhase(store, work);
    const bound = BOUND_MB * 1048576;
    const evictions = counter(load.metrics, 'store_cache_evictions_total');
    const loadMet = load.failures.length === 0 && load.maxBytes <= bound;
    const loadLines = [
      `| ${TENANTS} tenants, cache of ${BOUND_MB} MiB (about 10 of them), ${CLIENTS} clients, ${SECONDS} s | ${load.requests} reads (${fmt(load.requests / SECONDS, 0)}/s): ${load.ok} answered from their tenant's file, ${load.retries} 503 with Retry-After, ${load.failures.length} other | cache on disk at most ${fmt(load.maxBytes / 1048576, 2)} MiB of ${BOUND_MB} (${load.samples} samples, every 100 ms) | hits ${counter(load.metrics, 'store_cache_hits_total')}, misses ${counter(load.metrics, 'store_cache_misses_total')}, evictions ${evictions}, fetch time p50 ${histogramBound(load.metrics, 'store_cache_fetch_duration_seconds', 0.5)} s, p99 ${histogramBound(load.metrics, 'store_cache_fetch_duration_seconds', 0.99)} s | ${loadMet ? 'met' : 'MISSED'} |`,
    ];
    for (const failure of load.failures.slice(0, 5)) console.log(`  failure: ${failure}`);
    console.log(`load: ${loadLines[0]}`);

    const ready = await readyPhase(work);
    console.log(`ready: ${fmt(ready.readyMs, 0)} ms, listing ${fmt(ready.listingMs, 0)} ms, ${ready.tenants} tenants, ${ready.objectGets} downloads`);
    const readyMet = ready.readyMs <= GOAL_READY_MS && ready.objectGets === 0 && ready.tenants === READY_TENANTS;
    const cold = await coldPhase(work);
    const download = median(cold.downloadMs);
    const firstMs = median(cold.firstMs);
    const duringP99 = median(cold.during.map((r) => r.latency.p99));
    const duringOk = cold.during.every((r) => r.ok === r.requests);
    console.log(`cold: first ${cold.firstMs.map((ms) => fmt(ms, 0)).join(', ')} ms, download ${cold.downloadMs.map((ms) => fmt(ms, 0)).join(', ')} ms; p99 alone ${fmt(cold.alone.latency.p99)} ms, during ${cold.during.map((r) => fmt(r.latency.p99)).join(', ')} ms`);
    const coldMet = firstMs <= download * GOAL_COLD_RATIO && duringP99 <= GOAL_P99_MS && duringOk;
    const reach = await reachPhase(store, work);
    const reachMet = Math.max(...reach) <= GOAL_REACH_MS;

    const markdown = [
      '## Bounded store cache: load within the bound, readiness, a cold tenant, a refresh across instances',
      '',
      'The built server against s3rver on loopback (`bench/store-cache.bench.ts`); demo tenant files of 0.7 MB, each about',
      '0.9 MB in the cache with its search index.',
      '',
      '| load | reads | cache on disk | from /metrics | goal |',
      '|---|---|---|---|---|',
      ...loadLines,
      '',
      '| figure | measured | goal |',
      '|---|---|---|',
      `| ${READY_TENANTS.toLocaleString('en-US')} tenants in the store, empty cache: start of the process to readiness 200 | ${fmt(ready.readyMs, 0)} ms (listing ${fmt(ready.listingMs, 0)} ms), ${ready.tenants} tenants known, ${ready.objectGets} objects downloaded | ≤ ${GOAL_READY_MS} ms, none downloaded: ${readyMet ? 'met' : 'MISSED'} |`,
      `| first request for a ${fmt(cold.mb, 1)} MB tenant against its download alone, ${COLD_ROUNDS} rounds (download ${cold.downloadMs.map((ms) => fmt(ms, 0)).join(', ')} ms; first request ${cold.firstMs.map((ms) => fmt(ms, 0)).join(', ')} ms) | median ${fmt(firstMs, 0)} ms against ${fmt(download, 0)} ms (${fmt(firstMs / download, 2)} ×) | ≤ ${GOAL_COLD_RATIO} ×: ${firstMs <= download * GOAL_COLD_RATIO ? 'met' : 'MISSED'} |`,
      `| cached tenants' summaries, open loop ${OPEN_LOOP_RATE}/s, alone (10 s) / while a ${fmt(cold.mb, 0)} MB tenant is fetched (8 s, each round) | p50 ${fmt(cold.alone.latency.p50)} / ${cold.during.map((r) => fmt(r.latency.p50)).join(', ')} ms, p99 ${fmt(cold.alone.latency.p99)} / ${cold.during.map((r) => fmt(r.latency.p99)).join(', ')} ms, max ${fmt(cold.alone.latency.max)} / ${cold.during.map((r) => fmt(r.latency.max)).join(', ')} ms (${cold.during.every((r) => r.ok === r.requests) ? 'every answer 200' : 'not every answer 200'}) | median p99 ≤ ${GOAL_P99_MS} ms: ${duringP99 <= GOAL_P99_MS && duringOk ? 'met' : 'MISSED'} |`,
      `| a refresh sent to one of two instances on one PostgreSQL until the other serves the new generation, 5 times | median ${fmt(median(reach), 0)} ms, max ${fmt(Math.max(...reach), 0)} ms (${reach.map((ms) => fmt(ms, 0)).join(', ')}) | ≤ ${GOAL_REACH_MS} ms: ${reachMet ? 'met' : 'MISSED'} |`,
      '',
      `Goals: ${loadMet && readyMet && coldMet && reachMet ? 'all met' : 'some MISSED'}. The fetch times are the upper bounds of their histogram buckets.`,
    ].join('\n');
    console.log(markdown);
    if (SECONDS === 60) writeBenchSection('store-cache', markdown);
  } finally {
    await store.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
