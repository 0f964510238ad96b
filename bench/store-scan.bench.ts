// A hot tenant's reads while another caller scans tenants (docs/object-store.md, "The bounded cache"; decision 22):
// 60 tenants of 0.7 MB in the store (s3rver in a child process) behind a cache of 8 MiB, the hot tenant's report read
// open loop 20/s from one address; alone, then while one caller at another address runs 8 loops over the other 59
// tenants, each request aborted after 30 ms. With the fetch limit per caller as it comes (TENANT_FETCHES_PER_MINUTE
// 60) and with it off (the segmented LRU alone). Goal: the hot tenant's p99 with the scan within 2× its p99 alone and
// at most 100 ms. `npm run bench -- store-scan`; writes docs/benchmarks.md (section `store-scan`).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startObjectStoreProcess, type ChildObjectStore } from '../test/helpers/s3rver-process.js';
import { REPORT_KEY, tenantVariant } from '../test/helpers/store-cache.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { writeBenchSection } from './report.js';
import { sleep, startServer } from './server.js';
import { fmt } from './stats.js';

const TENANTS = 60;
const BOUND_MB = 8;
const HOT = 'scan.t00';
const RATE = 20;
const SECONDS = 20;
const LOOPS = 8;
const ABORT_MS = 30;
const SCANNER = '127.0.0.2';

interface ScanFigures {
  hot: OpenLoopResult;
  requests: number;
  refused: number;
  downloadedMb: number;
  evictions: number;
  hotEvictions: number;
}

/** One GET from `localAddress`, aborted after ABORT_MS: its status, or 0 when aborted. */
function abortedGet(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, { localAddress: SCANNER, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    request.on('error', () => resolve(0));
    setTimeout(() => request.destroy(), ABORT_MS).unref();
  });
}

/** The hot tenant alone (`scan` false) or beside the scan, on a fresh server with `env`. */
async function phase(store: ChildObjectStore, work: string, name: string, env: Record<string, string>, scan: boolean): Promise<ScanFigures> {
  const server = await startServer({ ...store.env({ STORE_CACHE_MAX_MB: String(BOUND_MB), ...env }), DATA_DIR: path.join(work, name) });
  try {
    const hotPath = `/api/reports/${HOT}/${REPORT_KEY}`;
    while ((await fetch(`${server.url}/health/ready`)).status !== 200) await sleep(20);
    // fetched and read again: the hot tenant is in steady use before the measured run
    for (let i = 0; i < 5; i++) await (await fetch(`${server.url}${hotPath}`)).arrayBuffer();
    await store.resetTraffic();
    const figures = { requests: 0, refused: 0 };
    let scanning = scan;
    const loops = Array.from({ length: scan ? LOOPS : 0 }, async (_, loop) => {
      for (let i = loop; scanning; i += LOOPS) {
        const status = await abortedGet(`${server.url}/api/reports/scan.t${String(1 + (i % (TENANTS - 1))).padStart(2, '0')}/${REPORT_KEY}`);
        figures.requests += 1;
        if (status === 429) figures.refused += 1;
      }
    });
    const hot = await openLoop({ url: server.url, paths: [hotPath], rate: RATE, seconds: SECONDS, warmupSeconds: 2 });
    scanning = false;
    await Promise.all(loops);
    const evicted = server.logged('tenant evicted from the store cache');
    const traffic = await store.traffic();
    return { hot, ...figures, downloadedMb: traffic.bytes / 1048576, evictions: evicted.length, hotEvictions: evicted.filter((line) => line['tenant'] === HOT).length };
  } finally {
    await server.stop();
  }
}

export async function run(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-store-scan-'));
  const store = await startObjectStoreProcess();
  try {
    const demo = [['ost', 'kantonsspital'], ['ost', 'rehaklinik'], ['west', 'hopital-cantonal'], ['west', 'rehaklinik']] as const;
    for (let i = 0; i < TENANTS; i++) {
      const [pack, slug] = demo[i % demo.length]!;
      const name = `t${String(i).padStart(2, '0')}`;
      const file = tenantVariant(pack, slug, `Tenant ${i}`, `report of scan.${name}`);
      await store.client.fPutObject(store.bucket, `scan/${name}/kls.sqlite`, file);
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
    const alone = await phase(store, work, 'alone', {}, false);
    const limited = await phase(store, work, 'limited', {}, true);
    const unlimited = await phase(store, work, 'unlimited', { TENANT_FETCHES_PER_MINUTE: '0' }, true);
    const p99 = alone.hot.latency.p99;
    const met = (f: ScanFigures): boolean => f.hot.ok === f.hot.requests && f.hot.latency.p99 <= Math.min(2 * p99, 100);
    const row = (label: string, f: ScanFigures, goal: boolean): string =>
      `| ${label} | p50 ${fmt(f.hot.latency.p50)} ms, p99 ${fmt(f.hot.latency.p99)} ms, max ${fmt(f.hot.latency.max)} ms; ${f.hot.ok} of ${f.hot.requests} 200 | ${f.requests} (${f.refused} answered 429, the rest aborted after ${ABORT_MS} ms) | ${fmt(f.downloadedMb, 1)} MB | ${f.evictions} (the hot tenant ${f.hotEvictions}) | ${goal ? (met(f) ? 'met' : 'MISSED') : '—'} |`;
    const markdown = [
      '## Bounded store cache: a hot tenant while another caller scans tenants',
      '',
      `The built server against s3rver in a child process (\`bench/store-scan.bench.ts\`): ${TENANTS} tenants of 0.7 MB behind a`,
      `cache of ${BOUND_MB} MiB (about 9 of them with their search indexes); the hot tenant's report read open loop ${RATE}/s`,
      `for ${SECONDS} s from 127.0.0.1; the scan: one caller (${SCANNER}) in ${LOOPS} loops over the other ${TENANTS - 1} tenants,`,
      `each request aborted after ${ABORT_MS} ms.`,
      '',
      `| run | hot tenant | scanner's requests | downloaded | evictions | goal: p99 ≤ 2 × alone and ≤ 100 ms |`,
      '|---|---|---|---|---|---|',
      row('hot tenant alone', alone, false),
      row('with the scan, TENANT_FETCHES_PER_MINUTE=60 (as it comes)', limited, true),
      row('with the scan, TENANT_FETCHES_PER_MINUTE=0 (segmented LRU alone)', unlimited, true),
    ].join('\n');
    console.log(markdown);
    writeBenchSection('store-scan', markdown);
  } finally {
    await store.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
