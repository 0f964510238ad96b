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
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { startBenchServer, sidecarOf, stopChild, waitFor, namesSettled, type BenchServer } from './bench-server.js';
import { closedLoop, describeClosedLoop, type Target } from './closed-loop.js';
import { coldQueries, QUERIES } from './search-queries.js';
import { fmt } from './stats.js';

const root = path.resolve(import.meta.dirname, '..');
const SEARCH_ITEMS = 200_000;
const CONNECTIONS = 50;
const SECONDS = 10;

const load = (target: Target, paths: string[] | (() => string), headers: Record<string, string> = {}, seconds = SECONDS, connections = CONNECTIONS) =>
  closedLoop(target, paths, { seconds, connections, headers });

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

const stop = stopChild;
const describe = describeClosedLoop;

/** A server started as `npm start` does, logging (LOG_LEVEL=info, the default) to a file the bench reads. */
async function startServer(dataDir: string, env: Record<string, string>, children: ChildProcess[]): Promise<BenchServer> {
  const server = await startBenchServer({ DATA_DIR: dataDir, ...env });
  children.push(server.child);
  return server;
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
    let builtMs = Number.NaN;
    await waitFor('search indexes', () => {
      if (Number.isNaN(builtMs) && sidecarOf(kls) !== undefined) builtMs = performance.now() - healthy;
      return demo.tenants.every((t) => sidecarOf(t.file) !== undefined);
    });
    const allBuiltMs = performance.now() - healthy;
    await waitFor('search names in memory', () => namesSettled(a) >= demo.tenants.length);
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
    await waitFor('search names in memory after a restart', () => namesSettled(a2) >= demo.tenants.length);
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
