// Jumpbar search on a tenant with 200,000 search items: p50/p95 under 50 concurrent connections (autocannon),
// against a naive LIKE scan of the same file served over HTTP by bench/search-scan-server.ts in the same run;
// then logo and report throughput, plain and with If-None-Match (304). Search runs twice: warm (the 22 queries
// repeat, so after the warm-up every answer comes from the result cache) and cold (every request a query the
// server has not seen: substrings of the tenant's own names, so every answer runs the index).
// Targets: search p95 <= 20 ms and >= 10x faster than the scan. At saturation, 50 connections make latency
// about 50 / throughput (queueing), so the service time of unseen queries over one connection is printed as well.
// The server runs as `npm start` runs it, at the default LOG_LEVEL (info, to a file: the bench reads when the
// names are in memory); a second server on the same files with SEARCH_MEMORY_MB=0 repeats the cold runs, so
// names in memory and sidecar statements are compared in one run, with each server's RSS.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { generateDemo } from '../src/demo/generate.js';
import { fmt, percentile, procCpuMs, procStatusKb } from './stats.js';
import { serverArgs } from './server-command.js';

const root = path.resolve(import.meta.dirname, '..');
const SEARCH_ITEMS = 200_000;
const CONNECTIONS = 50;
const SECONDS = 10;
/** Realistic jumpbar queries: rare and frequent words, accents, German and French, two words, one digit group. */
const QUERIES = [
  'fallpauschale', 'cost', 'coût', 'implant', 'billing backlog', 'nursing', 'prognose', 'müller', 'overview 12', 'kostengewicht',
  'ward', 'q3 2026', 'stay', 'drug', 'notfall', 'rapport', 'séjour', 'outliers', 'anna', 'materialverbrauch', 'budget', 'trend 4',
];

interface Autocannon {
  (options: Record<string, unknown>): Promise<{ requests: { average: number }; non2xx: number; errors: number }> & {
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  };
}
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Distinct queries of 3-10 characters cut from the tenant's names (deterministic), for the cold run. */
function coldQueries(kls: string, wanted: number): string[] {
  const db = new Database(kls, { readonly: true });
  const names = db.prepare('SELECT coalesce(name_de, name_en, name_fr) FROM search_items ORDER BY item_id').pluck().all() as (string | null)[];
  db.close();
  const queries = new Set<string>();
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; queries.size < wanted && i < names.length * 4; i++) {
    const name = names[Math.floor(next() * names.length)] ?? '';
    const length = 3 + Math.floor(next() * 8);
    const start = Math.floor(next() * Math.max(1, name.length - length));
    const query = name.slice(start, start + length).trim().toLowerCase();
    if (query.length >= 3) queries.add(query);
  }
  return [...queries];
}

/** The server behind a load: its URL and, to measure its CPU time, its process id. */
interface Target {
  url: string;
  pid?: number;
}

/**
 * Runs autocannon and returns per-request latencies plus throughput, and the server's CPU time (user + system)
 * per request: on this two-core machine the client may be the bottleneck, and that figure is the server's own.
 */
async function load(target: Target, paths: string[] | (() => string), headers: Record<string, string> = {}, seconds = SECONDS, connections = CONNECTIONS) {
  const { url, pid } = target;
  const cpuBefore = pid === undefined ? Number.NaN : procCpuMs(pid);
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const requests = typeof paths === 'function' ? [{ method: 'GET', setupRequest: (request: object) => ({ ...request, path: paths() }) }] : paths.map((p) => ({ method: 'GET', path: p }));
  const run = autocannon({ url, connections, duration: seconds, headers, requests });
  run.on('response', (_client, status, _bytes, ms) => {
    latencies.push(ms);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const result = await run;
  const cpuMs = pid === undefined ? Number.NaN : procCpuMs(pid) - cpuBefore;
  return {
    p50: percentile(latencies, 50), p95: percentile(latencies, 95), rps: result.requests.average, count: latencies.length, statuses, errors: result.errors,
    cpuMsPerRequest: cpuMs / Math.max(1, latencies.length),
  };
}

async function untilHealthy(url: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    try {
      if ((await fetch(`${url}/health`)).status === 200) return;
    } catch {
      // not listening yet
    }
  }
  throw new Error(`${url} did not become healthy`);
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0] as string);
    });
    child.once('exit', () => reject(new Error('the scan server exited')));
  });
}

const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

const describe = (r: Awaited<ReturnType<typeof load>>): string =>
  `p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms, ${fmt(r.rps, 0)} req/s (${r.count} requests, statuses ${[...r.statuses].map(([s, n]) => `${s}x${n}`).join(' ')})` +
  (Number.isNaN(r.cpuMsPerRequest) ? '' : `, server CPU ${fmt(r.cpuMsPerRequest, 3)} ms per request`);

/** A server started as `npm start` does, logging (LOG_LEVEL=info, the default) to a file the bench reads. */
interface BenchServer {
  child: ChildProcess;
  url: string;
  pid: number;
  /** Log lines with this message so far, parsed. */
  logged(message: string): Record<string, unknown>[];
  rssMb(): number;
}

async function startServer(dataDir: string, env: Record<string, string>, children: ChildProcess[]): Promise<BenchServer> {
  const port = 18600 + Math.floor(Math.random() * 300);
  const url = `http://127.0.0.1:${port}`;
  const logFile = path.join(os.tmpdir(), `ads-bench-search-${port}-${Date.now()}.log`);
  const out = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, serverArgs(), {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', out, 'inherit'],
  });
  fs.closeSync(out);
  children.push(child);
  child.once('exit', () => fs.rmSync(logFile, { force: true }));
  await untilHealthy(url);
  return {
    child,
    url,
    pid: child.pid as number,
    logged: (message) =>
      fs
        .readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes(`"msg":"${message}"`))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    rssMb: () => procStatusKb(child.pid as number, 'VmRSS') / 1024,
  };
}

async function waitFor(what: string, done: () => boolean, ms = 180_000): Promise<void> {
  for (const deadline = performance.now() + ms; !done(); await new Promise((r) => setTimeout(r, 50))) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
  }
}

export async function run(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-search-'));
  const children: ChildProcess[] = [];
  try {
    const generated = Date.now();
    const demo = generateDemo({ out: dataDir, tenants: 3, searchItems: SEARCH_ITEMS });
    const kls = demo.tenants.find((t) => t.compositeId === 'ost.kantonsspital')?.file as string;
    console.log(`demo data: 3 tenants, ${SEARCH_ITEMS} generated search items each (${fmt((Date.now() - generated) / 1000)} s)`);

    // Server A: as `npm start` runs it (folded names in memory, SEARCH_MEMORY_MB default).
    let a = await startServer(dataDir, {}, children);
    // The index of each tenant file is built in the background once the file is in service (one at a time),
    // then its names are read into memory; the load runs only after all three are done, so nothing competes.
    const healthy = performance.now();
    const sidecarOf = (file: string): string | undefined => fs.readdirSync(path.dirname(file)).find((name) => /^search-index\.g\d+\.sqlite$/.test(name));
    let builtMs = Number.NaN;
    await waitFor('search indexes', () => {
      if (Number.isNaN(builtMs) && sidecarOf(kls) !== undefined) builtMs = performance.now() - healthy;
      return demo.tenants.every((t) => sidecarOf(t.file) !== undefined);
    });
    const allBuiltMs = performance.now() - healthy;
    await waitFor('search names in memory', () => a.logged('search names in memory').length + a.logged('search names left on disk').length >= demo.tenants.length);
    const namesMs = performance.now() - healthy;
    const names = a.logged('search names in memory');
    const sidecar = sidecarOf(kls) as string;
    const firstStarted = performance.now();
    const first = await fetch(`${a.url}/api/jumpbar?tenant=kantonsspital&q=cost`);
    if (first.status !== 200) throw new Error(`first search answered ${first.status}`);
    await first.arrayBuffer();
    const sidecarMb = fs.statSync(path.join(path.dirname(kls), sidecar)).size / 1048576;
    console.log(
      `indexes built in the background: kantonsspital on disk ${fmt(builtMs, 0)} ms after /health answered (${sidecar}, ${fmt(sidecarMb)} MB), ` +
        `all 3 tenants after ${fmt(allBuiltMs, 0)} ms; names in memory for ${names.length} tenants after ${fmt(namesMs, 0)} ms ` +
        `(${names.map((n) => `${String(n['tenant'])} ${String(n['mb'])} MB in ${String(n['ms'])} ms`).join(', ')}); ` +
        `first search then ${fmt(performance.now() - firstStarted, 1)} ms`,
    );
    // RSS is compared between servers that open finished sidecars: building them leaves memory behind too.
    const buildRss = a.rssMb();
    await stop(a.child);
    const a2 = await startServer(dataDir, {}, children);
    const restarted = performance.now();
    await waitFor('search names in memory after a restart', () => a2.logged('search names in memory').length + a2.logged('search names left on disk').length >= demo.tenants.length);
    console.log(
      `restarted on the finished sidecars: names in memory again ${fmt(performance.now() - restarted, 0)} ms after /health answered ` +
        `(RSS ${fmt(a2.rssMb(), 0)} MB; the server that built the sidecars: ${fmt(buildRss, 0)} MB)`,
    );
    a = a2;
    const idleA = a.rssMb();

    const scanServer = spawn(process.execPath, ['--import', 'tsx', 'bench/search-scan-server.ts', kls], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(scanServer);
    const scanUrl = `http://127.0.0.1:${await firstLine(scanServer)}`;

    const searchPaths = QUERIES.map((q) => `/api/jumpbar?mode=search&tenant=kantonsspital&q=${encodeURIComponent(q)}`);
    const cold = coldQueries(kls, 20_000);
    let sent = 0;
    const coldPath = (): string => `/api/jumpbar?mode=search&tenant=kantonsspital&q=${encodeURIComponent(cold[sent++ % cold.length] as string)}`;
    const coldLabel = (): string =>
      `${cold.length} distinct, ${sent} sent${sent > cold.length ? ', cycled: a repeat comes ' + String(cold.length) + ' requests later, past the 256-entry result cache' : ''}`;
    await load(a, searchPaths, {}, 2); // warm-up (JIT, page cache); also fills the result cache with the 22 queries
    const unseen = await load(a, coldPath);
    console.log(`search COLD (each request a query not seen before, ${coldLabel()}): ${describe(unseen)}`);
    const indexed = await load(a, searchPaths);
    console.log(`search WARM (22 queries repeated: result cache, full server): ${describe(indexed)}`);
    const scanned = await load({ url: scanUrl, pid: scanServer.pid }, QUERIES.map((q) => `/scan?q=${encodeURIComponent(q)}`));
    console.log(`naive LIKE scan (bare HTTP server):  ${describe(scanned)}`);
    const alone = await load(a, coldPath, {}, 5, 1);
    console.log(`search COLD over one connection (service time, no queueing): ${describe(alone)}`);
    for (const [label, r] of [['WARM', indexed], ['COLD', unseen]] as const) {
      console.log(
        `search ${label} vs scan: p50 ${fmt(scanned.p50 / r.p50)}x, p95 ${fmt(scanned.p95 / r.p95)}x faster, ` +
          `${fmt(r.rps / scanned.rps)}x the throughput (target >= 10x); p95 ${fmt(r.p95)} ms (target <= 20 ms)`,
      );
    }

    for (const [label, target] of [['logo', '/api/logo/kantonsspital'], ['report', '/api/reports/kantonsspital/monthly_controlling_2026_10']] as const) {
      const etag = (await fetch(a.url + target)).headers.get('etag') as string;
      const plain = await load(a, [target], {}, 5);
      const revalidated = await load(a, [target], { 'if-none-match': etag }, 5);
      console.log(`${label} 200: ${describe(plain)}`);
      console.log(`${label} 304 (If-None-Match): ${describe(revalidated)}`);
    }
    const loadedA = a.rssMb();
    await stop(a.child);
    await stop(scanServer);

    // Server B: the same files (sidecars reused) with SEARCH_MEMORY_MB=0: every search runs the sidecar's statements.
    const b = await startServer(dataDir, { SEARCH_MEMORY_MB: '0' }, children);
    const idleB = b.rssMb();
    await load(b, searchPaths, {}, 2); // warm-up, as for A
    sent = 0;
    const statements = await load(b, coldPath);
    console.log(`search COLD with SEARCH_MEMORY_MB=0 (${coldLabel()}): ${describe(statements)}`);
    const statementsAlone = await load(b, coldPath, {}, 5, 1);
    console.log(`search COLD with SEARCH_MEMORY_MB=0 over one connection: ${describe(statementsAlone)}`);
    const loadedB = b.rssMb();
    console.log(
      `names in memory vs sidecar statements, COLD: ${fmt(unseen.rps / statements.rps, 2)}x the throughput, p95 ${fmt(unseen.p95)} vs ${fmt(statements.p95)} ms, ` +
        `server CPU ${fmt(unseen.cpuMsPerRequest, 3)} vs ${fmt(statements.cpuMsPerRequest, 3)} ms per request; ` +
        `one connection p50 ${fmt(alone.p50, 2)} vs ${fmt(statementsAlone.p50, 2)} ms (${fmt(statementsAlone.p50 / alone.p50, 2)}x); ` +
        `server RSS idle ${fmt(idleA, 0)} vs ${fmt(idleB, 0)} MB, after the loads ${fmt(loadedA, 0)} vs ${fmt(loadedB, 0)} MB`,
    );
  } finally {
    for (const child of children) await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
