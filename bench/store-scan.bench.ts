// A hot tenant's reads while another caller scans tenants (docs/object-store.md, "The bounded cache"; decision 22):
// 60 tenants of 0.7 MB in the store (s3rver in a child process) behind a cache of 8 MiB, the hot tenant's report read
// open loop 20/s from one address; alone, then while one caller at another address reads the other 59 tenants in
// turn: in one loop that waits out each 429's Retry-After, or in 8 loops that abort each request after 30 ms and
// never wait. With the fetch limit per caller as it comes (TENANT_FETCHES_PER_MINUTE 60) and with it off (the
// cache's eviction policy alone). Goal: the hot tenant's p99 with the scan within 2× its p99 alone and at most 100 ms.
// `npm run bench -- store-scan`; writes docs/benchmarks.md (section `store-scan`).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startObjectStoreProcess, type ChildObjectStore } from '../test/helpers/s3rver-process.js';
import { REPORT_KEY, tenantVariant } from '../test/helpers/store-cache.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { writeBenchSection } from './report.js';
import { buildOf, sleep, startServer, thisBuild, type Build } from './server.js';
import { fmt, procCpuMs } from './stats.js';

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
  /** The scanner's answers by status ('aborted' when it gave up after ABORT_MS). */
  statuses: Record<string, number>;
  /** CPU the server used during the measured run, in % of one core. */
  serverCpuPercent: number;
  /** The server's event-loop delay over the measured run (prom-client's, from /metrics), ms. */
  loopDelay: { p99: number; max: number };
  /** The server's log lines during the run by message, most frequent first. */
  logLines: [string, number][];
  downloadedMb: number;
  evictions: number;
  hotEvictions: number;
}

/** How the scanner reads: one loop that waits out Retry-After, or LOOPS loops that abort each request after ABORT_MS. */
type Scan = 'none' | 'waits' | 'aborts';

/** A run beside the hot tenant's reads: its name (STORE_SCAN_ONLY), the server's settings, the scan. */
interface Run {
  name: string;
  label: string;
  env: Record<string, string>;
  scan: Scan;
}

const RUNS: Run[] = [
  { name: 'waits', label: 'a scan that waits out Retry-After (settings as they come)', env: {}, scan: 'waits' },
  { name: 'aborts', label: `${LOOPS} loops aborting after ${ABORT_MS} ms (settings as they come)`, env: {}, scan: 'aborts' },
  { name: 'unlimited', label: `${LOOPS} loops aborting after ${ABORT_MS} ms, TENANT_FETCHES_PER_MINUTE=0 (the cache's policy alone)`, env: { TENANT_FETCHES_PER_MINUTE: '0' }, scan: 'aborts' },
];

/** One GET from SCANNER, aborted after ABORT_MS when `abort`: its status (0 when aborted) and Retry-After. */
function scanGet(url: string, abort: boolean): Promise<{ status: number; retryAfter: number }> {
  return new Promise((resolve) => {
    const request = http.get(url, { localAddress: SCANNER, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 0) }));
      res.on('error', () => resolve({ status: 0, retryAfter: 0 }));
    });
    request.on('error', () => resolve({ status: 0, retryAfter: 0 }));
    if (abort) setTimeout(() => request.destroy(), ABORT_MS).unref();
  });
}

/** The server's event-loop delay since the last scrape (prom-client resets its histogram on each), in ms. */
async function scrapeLoopDelay(url: string): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string): number => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? Number.NaN) * 1000;
  return { p99: value('nodejs_eventloop_lag_p99_seconds'), max: value('nodejs_eventloop_lag_max_seconds') };
}

/** The kernel's count of connections dropped because a listen queue was full (every process's), from /proc/net/netstat. */
function listenOverflows(): number {
  const lines = fs.readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((line) => line.startsWith('TcpExt:'));
  const names = lines[0]?.split(/\s+/) ?? [];
  const values = lines[1]?.split(/\s+/) ?? [];
  return Number(values[names.indexOf('ListenOverflows')] ?? Number.NaN);
}

/** Log lines by message, most frequent first. */
function countByMessage(lines: Record<string, unknown>[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const msg = `${String(line['msg'])}${line['status'] === undefined ? '' : ` ${String(line['status'])}`}`;
    counts.set(msg, (counts.get(msg) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]);
}

/** The hot tenant alone or beside a scan, on a fresh server with `env`. */
async function phase(store: ChildObjectStore, work: string, name: string, env: Record<string, string>, scan: Scan, build: Build): Promise<ScanFigures> {
  const server = await startServer({ ...store.env({ STORE_CACHE_MAX_MB: String(BOUND_MB), ...env }), DATA_DIR: path.join(work, `${name}-${build.label.replace(/\W+/g, '-')}`) }, { build });
  try {
    const hotPath = `/api/reports/${HOT}/${REPORT_KEY}`;
    while ((await fetch(`${server.url}/health/ready`)).status !== 200) await sleep(20);
    // fetched and read again: the hot tenant is in steady use before the measured run
    for (let i = 0; i < 5; i++) await (await fetch(`${server.url}${hotPath}`)).arrayBuffer();
    await store.resetTraffic();
    await scrapeLoopDelay(server.url);
    const overflowsBefore = listenOverflows();
    let mostFds = 0;
    const fdSampler = setInterval(() => {
      try {
        mostFds = Math.max(mostFds, fs.readdirSync(`/proc/${server.pid}/fd`).length);
      } catch {
        // ended
      }
    }, 200);
    const cpuBefore = procCpuMs(server.pid);
    const runStarted = performance.now();
    const figures = { requests: 0, refused: 0, statuses: {} as Record<string, number> };
    let scanning = scan !== 'none';
    const loopCount = scan === 'aborts' ? LOOPS : scan === 'waits' ? 1 : 0;
    const loops = Array.from({ length: loopCount }, async (_, loop) => {
      for (let i = loop; scanning; i += loopCount) {
        const answer = await scanGet(`${server.url}/api/reports/scan.t${String(1 + (i % (TENANTS - 1))).padStart(2, '0')}/${REPORT_KEY}`, scan === 'aborts');
        figures.requests += 1;
        const status = answer.status === 0 ? 'aborted' : String(answer.status);
        figures.statuses[status] = (figures.statuses[status] ?? 0) + 1;
        if (answer.status !== 429) continue;
        figures.refused += 1;
        // the waiting scanner resumes when told to, or when the run ends
        for (const until = performance.now() + answer.retryAfter * 1000; scan === 'waits' && scanning && performance.now() < until; ) await sleep(50);
      }
    });
    const hot = await openLoop({ url: server.url, paths: [hotPath], rate: RATE, seconds: SECONDS, warmupSeconds: 2 });
    scanning = false;
    await Promise.all(loops);
    const serverCpuPercent = ((procCpuMs(server.pid) - cpuBefore) / (performance.now() - runStarted)) * 100;
    const loopDelay = await scrapeLoopDelay(server.url);
    const logLines = countByMessage(server.logged(''));
    clearInterval(fdSampler);
    logLines.unshift([`most file descriptors the server held (sampled every 200 ms):`, mostFds]);
    logLines.unshift([`connections dropped by full listen queues on this machine (ListenOverflows, every process's) during the run:`, listenOverflows() - overflowsBefore]);
    const late = server.logged('request').filter((line) => String(line['path']).includes('/scan.t') && !String(line['path']).includes(HOT) && Number(line['ms']) > ABORT_MS);
    const hotMs = server.logged('request').filter((line) => String(line['path']).includes(`/${HOT}/`)).map((line) => Number(line['ms'])).sort((a, b) => a - b);
    logLines.unshift([`hot requests as the server timed them: p99 ${hotMs[Math.floor(hotMs.length * 0.99)]} ms, max ${hotMs.at(-1)} ms, of`, hotMs.length]);
    logLines.unshift([`scanner requests the server ended after ${ABORT_MS} ms, by status: ${JSON.stringify(Object.fromEntries(countByMessage(late.map((l) => ({ msg: String(l['status']) })))))}; longest ${Math.max(0, ...late.map((l) => Number(l['ms'])))} ms`, late.length]);
    const evicted = server.logged('tenant evicted from the store cache');
    const traffic = await store.traffic();
    return { hot, ...figures, serverCpuPercent, loopDelay, logLines, downloadedMb: traffic.bytes / 1048576, evictions: evicted.length, hotEvictions: evicted.filter((line) => line['tenant'] === HOT).length };
  } finally {
    await server.stop();
  }
}

export async function run(args: string[] = []): Promise<void> {
  // `npm run bench -- store-scan <ref>`: every run on the build of <ref> and on this one, side by side
  const builds = args[0] === undefined ? [thisBuild()] : [buildOf(args[0]), thisBuild()];
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
    // STORE_SCAN_ONLY=aborts (or a list) runs the hot tenant alone and those runs only, and writes no section
    const only = process.env['STORE_SCAN_ONLY']?.split(',').map((name) => name.trim());
    const runs = RUNS.filter((r) => only === undefined || only.includes(r.name));
    const rows: string[] = [];
    const notes: string[] = [];
    // each run on every build in turn (base, then this one), so that a machine's load falls on both alike
    const alone = new Map<Build, ScanFigures>();
    const byRun = new Map<string, ScanFigures>();
    const answers = (f: ScanFigures): string =>
      f.requests === 0 ? '—' : `${f.requests}: ${Object.entries(f.statuses).sort((a, b) => b[1] - a[1]).map(([status, n]) => `${n} ${status}`).join(', ')}`;
    const row = (build: Build, name: string, label: string, f: ScanFigures): string => {
      const p99 = alone.get(build)!.hot.latency.p99;
      const goal = name !== 'alone';
      const met = f.hot.ok === f.hot.requests && f.hot.latency.p99 <= Math.min(2 * p99, 100);
      const base = builds.length > 1 && build !== builds[0] ? byRun.get(name) : undefined;
      byRun.set(name, f);
      const versus = base === undefined ? '' : `; p99 ÷ base ${fmt(f.hot.latency.p99 / base.hot.latency.p99, 2)}`;
      return `| ${builds.length > 1 ? `${build.label}: ` : ''}${label} | ${fmt(f.hot.latency.p50)} / ${fmt(f.hot.latency.p99)} / ${fmt(f.hot.latency.max)} ms; ${f.hot.ok} of ${f.hot.requests} 200 | ${goal ? `${fmt(f.hot.latency.p99 / p99, 2)}×` : '1×'}${versus} | ${goal ? (met ? 'met' : 'MISSED') : '—'} | ${answers(f)} | ${fmt(f.serverCpuPercent, 0)} %; ${fmt(f.loopDelay.p99)} / ${fmt(f.loopDelay.max)} ms | ${fmt(f.downloadedMb, 1)} MB | ${f.evictions} (the hot tenant ${f.hotEvictions}) |`;
    };
    for (const build of builds) {
      alone.set(build, await phase(store, work, 'alone', {}, 'none', build));
      rows.push(row(build, 'alone', 'hot tenant alone', alone.get(build)!));
    }
    for (const r of runs) {
      for (const build of builds) {
        const f = await phase(store, work, r.name, r.env, r.scan, build);
        rows.push(row(build, r.name, r.label, f));
        notes.push(`${build.label}, ${r.name}: ${f.logLines.slice(0, 8).map(([msg, n]) => `${n} ${msg}`).join('; ')}`);
      }
    }
    const markdown = [
      '## Bounded store cache: a hot tenant while another caller scans tenants',
      '',
      `The built server against s3rver in a child process (\`bench/store-scan.bench.ts\`): ${TENANTS} tenants of 0.7 MB behind a`,
      `cache of ${BOUND_MB} MiB (about 9 of them with their search indexes); the hot tenant's report read open loop ${RATE}/s`,
      `for ${SECONDS} s from 127.0.0.1; the scan: one caller (${SCANNER}) reading the other ${TENANTS - 1} tenants in turn, in one loop`,
      `that waits out each 429's \`Retry-After\`, or in ${LOOPS} loops that abort each request after ${ABORT_MS} ms and never wait.`,
      'A fresh server per run; the server\'s CPU and event-loop delay (p99 / max, prom-client) over the measured run.',
      '',
      `| run | hot tenant p50 / p99 / max | p99 ÷ alone | goal: p99 ≤ 2 × alone and ≤ 100 ms | scanner's answers | server CPU; loop delay | downloaded | evictions |`,
      '|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
    for (const note of notes) console.log(note);
    console.log(markdown);
    if (only === undefined && builds.length === 1) writeBenchSection('store-scan', markdown);
  } finally {
    await store.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
