// `npm run bench -- regress [<ref>]`: every goal of docs/benchmarks.md, for this build and, given a ref, beside the
// build of that commit (checked out, installed and built under .tmp/ with the Node.js release it needs:
// bench/server.ts), side by side in one run. The servers run as `npm start` runs them, all features on: response
// validation, default logging. Each round takes every build in turn (the order rotates); the medians of the rounds,
// their spread (the largest distance of a round from the median) and the ratio this build / the other go to the
// terminal and, after a full run of every measure, into docs/benchmarks.md (section `regress`).
//
// The measures, per build and round:
//   peer    `GET /api/jumpbar?mode=tenants` (answered from memory) and openapi-backend on Koa as its README shows
//           sending the same bytes over the same contract (bench/openapi-backend-koa.ts), each closed loop; the ratio;
//   views   `GET /api/views` with 20 saved views, closed loop (no goal: the common small request that reads the
//           application database, compared between the builds);
//   search  unseen searches closed loop (capacity, CPU per request) and open loop at 1,000 req/s (p99);
//           these three on one server per build over its own copy of one tenant of 200,000 search items;
//   export  the export bench's round (bench/export.bench.ts), without a memory limit: 1,000,000-row exports of
//           narrow and wide rows, each download beside a `sqlite3 -csv` run of its SELECT, the RSS growth over
//           them (the worse shape counts), other clients' p99 meanwhile;
//   memory  inside a memory cgroup of 256 MB each (bench/memory-limit.ts), a fresh server on a fresh copy of the
//           data: the standard loads (bench/standard-loads.ts), then 1,000 small tenants (bench/tenants.ts); killed
//           or not, the cgroup's peak, the server's peak RSS, failed requests. Where no cgroup can be made, the
//           loads run without a limit, the bench says so and the memory goal is not judged.
//
// Knobs (environment):
//   REGRESS_QUICK=1          checks the harness in a few minutes: small data, short phases, 2 rounds; nothing written
//   REGRESS_MEASURES         which measures run (peer,views,search,export,memory; default all)
//   REGRESS_ROUNDS           rounds (5: the memory goal asks for five runs in a row)
//   REGRESS_SECONDS          each load (10); REGRESS_WARMUP_SECONDS: each server's warm-up per load (20, V8 keeps
//                            optimizing a server at ~15,000 req/s for about that long)
//   REGRESS_ITEMS            search items of the searched tenant (200,000); REGRESS_ROWS: rows of the exports
//                            (1,000,000); REGRESS_TENANTS: small tenants (1,000); REGRESS_RATE: the search's open
//                            loop (1,000 req/s)
//   REGRESS_MEMORY_LIMIT_MB  the memory limit (256; 64 shows what a killed run looks like)
//   REGRESS_CGROUP_PARENT    the cgroup to make the limits in (default: the bench's own; bench/memory-limit.ts)
//   BENCH_BASE_ENV           settings of the other build (`NAME=value …`); with the ref `.` this build runs beside
//                            itself with them (for example SEARCH_MEMORY_MB=0: the search without its names in memory)
//   BENCH_BASE_NODE          the Node.js release of the other build, instead of the one its checkout asks for
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closedLoop, type ClosedLoopResult } from './closed-loop.js';
import { EXPORT_GOALS, generateExportData, growthOf, measureExportBuild, othersMeanwhile, ratioOf, type ExportShape } from './export.bench.js';
import { cgroupSupport, describeRun, describeSupport, insideMemoryLimit, type CgroupSupport, type LimitedRun } from './memory-limit.js';
import { writeBenchSection } from './report.js';
import { cell, ratioCell, type Measure } from './rounds-table.js';
import { generateSearchTenant, measureSearch, searchReady, unseenPaths, type SearchTenant } from './search.js';
import { buildOf, fetchAnswer, nodeVersion, startPeer, startServer, thisBuild, type BenchServer, type Build } from './server.js';
import { standardLoadsRun } from './standard-loads.js';
import { fmt, median } from './stats.js';
import { generateSmallTenants, smallTenantsRun } from './tenants.js';

const QUICK = process.env['REGRESS_QUICK'] === '1';
const setting = (name: string, full: number, quick: number): number => {
  const value = Number(process.env[name] ?? (QUICK ? quick : full));
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
};
const ROUNDS = setting('REGRESS_ROUNDS', 5, 2);
const SECONDS = setting('REGRESS_SECONDS', 10, 2);
const WARMUP = setting('REGRESS_WARMUP_SECONDS', 20, 1);
const ITEMS = setting('REGRESS_ITEMS', 200_000, 20_000);
const ROWS = setting('REGRESS_ROWS', 1_000_000, 100_000);
const TENANTS = setting('REGRESS_TENANTS', 1000, 30);
/** The open loop's offered load: the goal's 1,000 req/s; the quick run offers less, so that it does not drain a backlog. */
const RATE = setting('REGRESS_RATE', 1000, 200);
const LIMIT_MB = setting('REGRESS_MEMORY_LIMIT_MB', 256, 256);
const ALL = ['peer', 'views', 'search', 'export', 'memory'] as const;
const ONLY = new Set((process.env['REGRESS_MEASURES'] ?? ALL.join(',')).split(',').map((m) => m.trim()));
for (const m of ONLY) if (!(ALL as readonly string[]).includes(m)) throw new Error(`REGRESS_MEASURES: unknown measure "${m}" (known: ${ALL.join(', ')})`);
/** The memory goal asks for this many runs in a row. */
const RUNS_IN_A_ROW = 5;
const CONNECTIONS = 50;
const VIEWS = 20;
const CONCURRENCY = 4;
const TENANTS_PATH = '/api/jumpbar?mode=tenants';
const VIEWS_PATH = '/api/views?tenant=kantonsspital';
/**
 * Seconds of unseen searches, not measured, before each round's search loads: a server idle for 30 s has ended its
 * search thread (the other build's round takes longer), and the capacity measured is that of a running one, not its
 * start (which reads the names and hits again: about 1 s with 50 searches at a time).
 */
const SEARCH_WARMUP = Math.min(WARMUP, 3);

/** A measure of docs/benchmarks.md's goals, and the measure of REGRESS_MEASURES that takes it. */
interface RegressMeasure extends Measure {
  of: (typeof ALL)[number];
}
const n = (value: number): string => value.toLocaleString('en-US');
/** Where the bench can make memory cgroups: judged at the start of a run with the memory measure. */
let support: CgroupSupport | null = null;
const neverKilled = (killed: number, _spread: number, rounds: number): boolean | undefined =>
  support === null || 'reason' in support ? undefined : killed > 0 ? false : rounds >= RUNS_IN_A_ROW ? true : undefined;
const M = {
  tenantsRps: { of: 'peer', label: '`GET /api/jumpbar?mode=tenants` (answered from memory), req/s', digits: 0 },
  peerRps: { of: 'peer', label: 'openapi-backend on Koa as its README shows, the same contract and bytes, req/s', digits: 0 },
  peerRatio: { of: 'peer', label: '`mode=tenants` / openapi-backend', digits: 2, goal: '≥ 2.0', holds: (m) => m >= 2 },
  viewsRps: { of: 'views', label: `\`GET /api/views\` (${VIEWS} views), req/s`, digits: 0 },
  searchRps: { of: 'search', label: `unseen searches, closed loop ${CONNECTIONS} connections, req/s`, digits: 0 },
  searchCpu: { of: 'search', label: 'unseen searches, server CPU ms/request', digits: 3 },
  openP99: { of: 'search', label: `unseen searches, open loop ${n(RATE)} req/s, p99 ms`, digits: 1, goal: '≤ 20', holds: (m) => m <= 20 },
  exportMs: { of: 'export', label: `the ${n(ROWS)}-row \`materials\` export, ms`, digits: 0 },
  exportRatio: { of: 'export', label: 'narrow and wide rows, the worse: export / `sqlite3 -csv` run beside it', digits: 2, goal: `≤ ${EXPORT_GOALS.cliRatio}`, holds: (m) => m <= EXPORT_GOALS.cliRatio },
  exportGrowth: { of: 'export', label: 'server RSS growth over an export\'s downloads (the worse shape), MB', digits: 1, goal: `< ${EXPORT_GOALS.growthMb}`, holds: (m) => m < EXPORT_GOALS.growthMb },
  othersP99: { of: 'export', label: "others' p99 while costly exports or explains run (worst of `/health` and a search), ms", digits: 1, goal: `≤ ${EXPORT_GOALS.othersP99Ms}`, holds: (m) => m <= EXPORT_GOALS.othersP99Ms },
  standardKilled: { of: 'memory', label: `standard loads inside ${LIMIT_MB} MB: runs killed`, digits: 0, total: true, goal: `none in ${RUNS_IN_A_ROW} runs`, holds: neverKilled },
  standardPeak: { of: 'memory', label: 'standard loads: cgroup peak (page cache included), MB', digits: 1 },
  standardRss: { of: 'memory', label: 'standard loads: server peak RSS, MB', digits: 1 },
  smallKilled: { of: 'memory', label: `${n(TENANTS)} small tenants inside ${LIMIT_MB} MB: runs killed`, digits: 0, total: true, goal: `none in ${RUNS_IN_A_ROW} runs`, holds: neverKilled },
  smallPeak: { of: 'memory', label: `${n(TENANTS)} small tenants: cgroup peak (page cache included), MB`, digits: 1 },
  smallRss: { of: 'memory', label: `${n(TENANTS)} small tenants: server peak RSS, MB`, digits: 1 },
  memoryFailed: { of: 'memory', label: 'failed requests in those runs', digits: 0, total: true, goal: '0', holds: (sum) => sum === 0 },
} satisfies Record<string, RegressMeasure>;
type Key = keyof typeof M;
const KEYS = (Object.keys(M) as Key[]).filter((k) => ONLY.has(M[k].of));

interface Side {
  build: Build;
  label: string;
  dataDir?: string;
  server?: BenchServer;
  peer?: { url: string; pid: number; stop: () => Promise<void> };
  figures: Partial<Record<Key, number[]>>;
  /** The memory measure's runs, round by round. */
  runs: { standard: LimitedRun; tenants: LimitedRun }[];
  /** Requests that did not get a 2xx, per load: a failed request's load is named in the report. */
  failed: Map<string, number>;
}

const failures = (r: ClosedLoopResult): number => r.errors + [...r.statuses].filter(([s]) => s !== 200).reduce((count, [, c]) => count + c, 0);
const countFailed = (side: Side, load: string, count: number): void => {
  if (count > 0) side.failed.set(load, (side.failed.get(load) ?? 0) + count);
};

/** Starts `side`'s server on its own copy of the search tenant, with its views, and its openapi-backend peer. */
async function prepare(side: Side, data: SearchTenant): Promise<void> {
  side.dataDir = fs.mkdtempSync(`${data.dir}-copy-`);
  fs.cpSync(data.dir, side.dataDir, { recursive: true });
  side.server = await startServer({ DATA_DIR: side.dataDir }, { build: side.build });
  await searchReady(side.server, path.join(side.dataDir, path.relative(data.dir, data.kls)));
  for (let i = 0; ONLY.has('views') && i < VIEWS; i++) {
    const res = await fetch(`${side.server.url}/api/views`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant: 'kantonsspital', entity: 'cost_centres', name: `view ${i}`, params: { sort: 'budget_chf', page: i } }),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${side.label}: POST /api/views answered ${res.status}`);
  }
  if (!ONLY.has('peer')) return;
  const answer = await fetchAnswer(side.server.url + TENANTS_PATH);
  if (answer.status !== 200) throw new Error(`${side.label}: ${TENANTS_PATH} answered ${answer.status}`);
  side.peer = await startPeer(answer, side.build);
  const peer = await fetchAnswer(side.peer.url + TENANTS_PATH);
  if (peer.status !== 200 || !peer.body.equals(answer.body)) throw new Error(`${side.label}: openapi-backend does not send the same bytes (${peer.status})`);
}

/** What every side's round shares: the data and, for the export, the CLI's time in this round. */
interface RoundData {
  data: SearchTenant | null;
  unseen: ReturnType<typeof unseenPaths> | null;
  exportDir: string;
  exportShapes: ExportShape[];
  pristineTenants: string;
  tenants: string[];
}

/** One round of `side`: each measure in turn, its figures appended. */
async function round(side: Side, shared: RoundData): Promise<void> {
  const got: Partial<Record<Key, number>> = {};
  const server = side.server === undefined ? undefined : { url: side.server.url, pid: side.server.pid };
  const options = { seconds: SECONDS, connections: CONNECTIONS };
  if (server !== undefined && ONLY.has('peer')) {
    const peer = await closedLoop(side.peer!, [TENANTS_PATH], options);
    countFailed(side, 'openapi-backend', failures(peer));
    const small = await closedLoop(server, [TENANTS_PATH], options);
    countFailed(side, 'mode=tenants', failures(small));
    Object.assign(got, { tenantsRps: small.rps, peerRps: peer.rps, peerRatio: small.rps / peer.rps });
  }
  if (server !== undefined && ONLY.has('views')) {
    const views = await closedLoop(server, [VIEWS_PATH], options);
    countFailed(side, 'views', failures(views));
    got.viewsRps = views.rps;
  }
  const { unseen } = shared;
  if (server !== undefined && unseen !== null && ONLY.has('search')) {
    await closedLoop(server, unseen.next, { seconds: SEARCH_WARMUP, connections: CONNECTIONS });
    const { closed, open } = await measureSearch(server, unseen, { ...options, rate: RATE });
    countFailed(side, 'search, closed loop', failures(closed));
    countFailed(side, `search, open loop (non-2xx ${open.non2xx}, network ${open.networkErrors}, timed out ${open.timedOut})`, open.non2xx + open.networkErrors + open.timedOut);
    Object.assign(got, { searchRps: closed.rps, searchCpu: closed.cpuMsPerRequest, openP99: open.latency.p99 });
  }
  if (ONLY.has('export')) {
    const exported = await measureExportBuild(side.build, shared.exportDir, shared.exportShapes, { rows: ROWS, seconds: SECONDS, latency: true });
    const others = othersMeanwhile(exported);
    countFailed(side, 'export, other clients and costly requests', others.failed);
    const wide = exported.shapes.find((s) => s.shape === 'wide')!;
    Object.assign(got, {
      exportMs: median(wide.serverMs),
      exportRatio: Math.max(...exported.shapes.map(ratioOf)),
      exportGrowth: Math.max(...exported.shapes.map(growthOf)),
      othersP99: others.p99,
    });
  }
  if (support !== null && shared.data !== null && unseen !== null) {
    const limits = support;
    const load = { paths: unseen.paths, rate: RATE, seconds: SECONDS };
    const standard = await insideMemoryLimit(limits, LIMIT_MB, (limit) => standardLoadsRun(side.build, shared.data!, load, limit));
    console.log(`${side.label}: standard loads ${describeRun(standard)}`);
    const tenants = await insideMemoryLimit(limits, LIMIT_MB, (limit) => smallTenantsRun(side.build, shared.pristineTenants, shared.tenants, CONCURRENCY, limit));
    console.log(`${side.label}: small tenants ${describeRun(tenants)}`);
    side.runs.push({ standard, tenants });
    countFailed(side, 'standard loads', standard.failed);
    countFailed(side, 'small tenants', tenants.failed);
    Object.assign(got, {
      standardKilled: Number(standard.killed),
      standardPeak: standard.cgroupPeakMb,
      standardRss: standard.serverPeakMb,
      smallKilled: Number(tenants.killed),
      smallPeak: tenants.cgroupPeakMb,
      smallRss: tenants.serverPeakMb,
      memoryFailed: standard.failed + tenants.failed,
    });
  }
  for (const key of KEYS) if (got[key] !== undefined) (side.figures[key] ??= []).push(got[key]);
  console.log(`${side.label}: ${KEYS.filter((k) => got[k] !== undefined).map((k) => `${k} ${fmt(got[k]!, M[k].digits)}`).join(', ')}`);
}

export async function run(args: string[]): Promise<void> {
  const ref = args[0];
  const builds = ref === undefined ? [thisBuild()] : [buildOf(ref), thisBuild()];
  const sides: Side[] = builds.map((build) => ({ build, label: `${build.label}, Node ${nodeVersion(build)}`, figures: {}, runs: [], failed: new Map() }));
  const loadAtStart = os.loadavg().map((l) => l.toFixed(1)).join(', ');
  console.log(`${QUICK ? 'QUICK RUN (REGRESS_QUICK=1: small data, short phases; not figures to quote)' : 'full run'}: ${sides.map((s) => s.label).join(' beside ')}; measures ${[...ONLY].join(', ')}`);
  support = ONLY.has('memory') ? cgroupSupport() : null;
  if (support !== null) console.log(`\n${describeSupport(support, LIMIT_MB)}\n`);
  const needsSearchTenant = ['peer', 'views', 'search', 'memory'].some((m) => ONLY.has(m));
  const data = needsSearchTenant ? generateSearchTenant(ITEMS, ONLY.has('memory') ? ROWS : undefined) : null;
  const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-export-'));
  const pristineTenants = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-tenants-'));
  try {
    const exportShapes = ONLY.has('export') ? generateExportData(exportDir, ROWS) : [];
    const tenants = ONLY.has('memory') ? generateSmallTenants(pristineTenants, TENANTS) : [];
    const unseen = data === null ? null : unseenPaths(data.kls, 'kantonsspital', 40_000);
    const shared: RoundData = { data, unseen, exportDir, exportShapes, pristineTenants, tenants };
    const serves = ['peer', 'views', 'search'].some((m) => ONLY.has(m));
    if (data !== null && serves) {
      for (const side of sides) await prepare(side, data);
      // warm-up: a cold server's first seconds measure the JIT, not the build
      for (const side of sides) {
        const server = { url: side.server!.url, pid: side.server!.pid };
        if (ONLY.has('peer')) await closedLoop(side.peer!, [TENANTS_PATH], { seconds: WARMUP, connections: CONNECTIONS });
        await closedLoop(server, [TENANTS_PATH], { seconds: WARMUP, connections: CONNECTIONS });
        if (ONLY.has('views')) await closedLoop(server, [VIEWS_PATH], { seconds: WARMUP, connections: CONNECTIONS });
        if (ONLY.has('search')) await closedLoop(server, unseen!.next, { seconds: WARMUP, connections: CONNECTIONS });
      }
    }
    for (let r = 0; r < ROUNDS; r++) {
      console.log(`round ${r + 1} of ${ROUNDS}`);
      for (let i = 0; i < sides.length; i++) await round(sides[(i + r) % sides.length]!, shared);
    }
  } finally {
    for (const side of sides) {
      await side.server?.stop();
      await side.peer?.stop();
      if (side.dataDir !== undefined) fs.rmSync(side.dataDir, { recursive: true, force: true });
    }
    data?.remove();
    fs.rmSync(exportDir, { recursive: true, force: true });
    fs.rmSync(pristineTenants, { recursive: true, force: true });
  }
  const markdown = report(sides, loadAtStart);
  console.log(`\n${markdown}`);
  if (!QUICK && ONLY.size === ALL.length) writeBenchSection('regress', markdown, `npm run bench -- regress${ref === undefined ? '' : ` ${ref}`}`);
  if (sides.some((s) => s.failed.size > 0)) process.exitCode = 1;
}

/** The section of docs/benchmarks.md: how the run went, the goals' table, the memory runs one by one, failures. */
function report(sides: Side[], loadAtStart: string): string {
  const current = sides[sides.length - 1]!;
  const older = sides.length > 1 ? sides[0]! : null;
  const rows = KEYS.map((key) => {
    const m: Measure = M[key];
    const figures = (side: Side): number[] => side.figures[key] ?? [];
    const ratio = older === null ? '' : ` ${ratioCell(figures(current), figures(older), m)} |`;
    return `| ${m.label} | ${m.goal ?? '-'} |${older === null ? '' : ` ${cell(figures(older), m)} |`} ${cell(figures(current), m)} |${ratio}`;
  });
  const runs = sides.flatMap((side) => side.runs.map((r, i) => `| ${side.label} | ${i + 1} | ${describeRun(r.standard)} | ${describeRun(r.tenants)} |`));
  const failed = sides.filter((s) => s.failed.size > 0).map((s) => `${s.label}: ${[...s.failed].map(([load, count]) => `${count} in ${load}`).join(', ')}`);
  const memory = support === null ? [] : ['', `${describeSupport(support, LIMIT_MB)} Each run on a fresh server and a fresh copy of its data:`, '', `| build | run | standard loads | ${n(TENANTS)} small tenants |`, '|---|---|---|---|', ...runs];
  return [
    older === null ? '## The goals, this build' : `## The goals, this build beside ${older.build.label}`,
    '',
    `${sides.map((s) => s.label).join(' and ')}${older === null ? '' : ', side by side'}; each server as \`npm start\` runs it, default logging;`,
    `${ROUNDS} round(s)${older === null ? '' : ', each build in turn (the order rotates)'}, ${SECONDS} s per load after ${WARMUP} s of warm-up per load; closed loop at`,
    `${CONNECTIONS} connections, open loop latency from the due time. Validation on in both the server and openapi-backend: requests`,
    'and responses (the server: `RESPONSE_VALIDATION` at its default, on; openapi-backend: its default request validation, and',
    '`postResponseHandler` with `validateResponse` as its README shows, with the string formats of ajv-formats).',
    ONLY.has('memory') ? `${n(TENANTS)} small tenants served ${CONCURRENCY} at a time. Machine load average at the start: ${loadAtStart}.` : `Machine load average at the start: ${loadAtStart}.`,
    'Each cell: the median of the rounds (± the largest distance of a round from it), or the count over the rounds, and whether the goal held.',
    '',
    `| measure | goal |${older === null ? '' : ` ${older.label} |`} ${current.label} |${older === null ? '' : ' ratio |'}`,
    `|---|---|---|${older === null ? '' : '---|---|'}`,
    ...rows,
    ...memory,
    ...(failed.length > 0 ? ['', `Failed requests: ${failed.join('; ')}.`] : []),
  ].join('\n');
}
