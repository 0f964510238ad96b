// `npm run bench -- regress [<ref>]`: the goals of docs/benchmarks.md that concern every request and the memory, for
// this build and, given a ref, beside the build of that commit (checked out, installed and built under .tmp/ with
// the Node.js release it needs: bench/server.ts), side by side in one run. All features on: response validation,
// default logging. Each round takes every build in turn (the order rotates); the medians of the rounds, their spread
// (the largest distance of a round from the median) and the ratio this build / the other go to the terminal and,
// after a full run of every measure, into docs/benchmarks.md (section `regress`). Without a ref, this build alone.
//
// The measures, per build and round:
//   jumpbar  `GET /api/jumpbar?mode=tenants` (answered from memory) and bare Koa sending the same bytes, each closed
//            loop; their ratio (bare Koa on the build's Node.js, with its `start` flags);
//   views    `GET /api/views` with 20 saved views, closed loop;
//   search   unseen searches closed loop (capacity) and bare Koa sending the bytes of such searches' answers (the
//            build's own answers to the first SEARCH_ANSWERS queries, in turn), each closed loop, and their ratio;
//            unseen searches open loop at 1,000 req/s;
//   idle     the RSS of that server (one tenant of 200,000 search items) after the loads, once it runs as many
//            threads as it did before them (those started on demand have ended idle) and a quiet period has passed;
//   tenants  RSS and open tenant files after 1,000 small tenants were each searched, summarised and exported, on a
//            fresh server and a fresh copy of the data every round.
//
// Knobs (environment):
//   REGRESS_QUICK=1       checks the harness in a few minutes: small data, short phases, 2 rounds; nothing written
//   REGRESS_MEASURES      which measures run (jumpbar,views,search,idle,tenants; default all)
//   REGRESS_ROUNDS        rounds (5: the memory goal asks for five runs in a row)
//   REGRESS_SECONDS       each load (10); REGRESS_WARMUP_SECONDS: each server's warm-up per load (20, V8 keeps
//                         optimizing a server at ~15,000 req/s for about that long)
//   REGRESS_IDLE_SECONDS  the shortest quiet period before the idle RSS (10)
//   REGRESS_ITEMS         search items of the tenant (200,000); REGRESS_TENANTS small tenants (1,000);
//   REGRESS_RATE          the search's open-loop load (1,000 req/s)
//   BENCH_BASE_ENV        settings of the other build (`NAME=value …`); with the ref `.` this build runs beside itself
//                         with them (for example SEARCH_MEMORY_MB=0: the search without its names in memory)
//   BENCH_BASE_NODE       the Node.js release of the other build, instead of the one its checkout asks for
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_TENANT_HANDLES_MAX } from '../src/tenants/handle-pool.js';
import { closedLoop, type ClosedLoopResult } from './closed-loop.js';
import { writeBenchSection } from './report.js';
import { generateSearchTenant, measureSearch, searchReady, unseenPaths, type SearchTenant } from './search.js';
import { buildOf, fetchAnswer, mainArenaMb, nodeVersion, sleep, startBareKoa, startServer, thisBuild, threadsBackTo, threadsOf, type BenchServer, type Build } from './server.js';
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
const IDLE = setting('REGRESS_IDLE_SECONDS', 10, 2);
const ITEMS = setting('REGRESS_ITEMS', 200_000, 20_000);
const TENANTS = setting('REGRESS_TENANTS', 1000, 30);
/** The open loop's offered load: the goal's 1,000 req/s; the quick run offers less, so that it does not drain a backlog. */
const RATE = setting('REGRESS_RATE', 1000, 200);
const ALL = ['jumpbar', 'views', 'search', 'idle', 'tenants'] as const;
const ONLY = new Set((process.env['REGRESS_MEASURES'] ?? ALL.join(',')).split(',').map((m) => m.trim()));
for (const m of ONLY) if (!(ALL as readonly string[]).includes(m)) throw new Error(`REGRESS_MEASURES: unknown measure "${m}" (known: ${ALL.join(', ')})`);
/** How long the idle RSS waits at most for the server's threads to be back to an idle server's. */
const IDLE_THREADS_WITHIN_MS = 60_000;
const CONNECTIONS = 50;
const VIEWS = 20;
const CONCURRENCY = 4;
/**
 * TENANT_HANDLES_MAX as this build's server gets it (passed through from the environment, else its default); an older
 * build runs with its own default.
 */
const HANDLES = Number(process.env['TENANT_HANDLES_MAX'] ?? DEFAULT_TENANT_HANDLES_MAX);
const TENANTS_PATH = '/api/jumpbar?mode=tenants';
const VIEWS_PATH = '/api/views?tenant=kantonsspital';
/**
 * Seconds of unseen searches, not measured, before each round's search loads: a server idle for 30 s has ended its
 * search thread (the other build's round and the idle measure take longer), and the capacity measured is that of a
 * running one, not its start (which reads the names and hits again: about 1 s with 50 searches at a time).
 */
const SEARCH_WARMUP = Math.min(WARMUP, 3);
/** Search answers bare Koa sends in turn: enough for the spread of their sizes (2–24 KB on the 200,000-item tenant). */
const SEARCH_ANSWERS = 200;

/** A figure of every round, what it means and its goal. */
interface Measure {
  of: (typeof ALL)[number];
  label: string;
  digits: number;
  goal?: string;
  holds?: (median: number, spreadPercent: number) => boolean;
}
const M = {
  tenantsRps: { of: 'jumpbar', label: '`GET /api/jumpbar?mode=tenants` (answered from memory), req/s', digits: 0 },
  bareRps: { of: 'jumpbar', label: 'bare Koa sending the same bytes, req/s', digits: 0 },
  tenantsRatio: { of: 'jumpbar', label: '`mode=tenants` / bare Koa', digits: 2, goal: '≥ 0.40', holds: (m) => m >= 0.4 },
  viewsRps: { of: 'views', label: `\`GET /api/views\` (${VIEWS} views), req/s`, digits: 0 },
  searchRps: { of: 'search', label: `unseen searches, closed loop ${CONNECTIONS} connections, req/s`, digits: 0 },
  bareSearchRps: { of: 'search', label: `bare Koa sending the bytes of ${SEARCH_ANSWERS} of those searches' answers in turn, req/s`, digits: 0 },
  searchRatio: { of: 'search', label: 'unseen searches / bare Koa sending their bytes', digits: 2, goal: '≥ 0.15', holds: (m) => m >= 0.15 },
  searchCpu: { of: 'search', label: 'unseen searches, server CPU ms/request', digits: 3 },
  openP99: { of: 'search', label: `unseen searches, open loop ${RATE.toLocaleString('en-US')} req/s, p99 ms`, digits: 1, goal: '≤ 20', holds: (m) => m <= 20 },
  idleRss: { of: 'idle', label: `idle RSS, one ${ITEMS.toLocaleString('en-US')}-item tenant, after the loads, MB`, digits: 1, goal: '≤ 150', holds: (m) => m <= 150 },
  tenantsRss: {
    of: 'tenants',
    label: `RSS after ${TENANTS.toLocaleString('en-US')} small tenants were each searched, summarised and exported, MB`,
    digits: 1,
    goal: '≤ 200, rounds within ±15 %',
    holds: (m, spread) => m <= 200 && spread <= 15,
  },
  tenantFiles: { of: 'tenants', label: 'open KLS files or search indexes after those, whichever more', digits: 0, goal: `≤ TENANT_HANDLES_MAX (${HANDLES})`, holds: (m) => m <= HANDLES },
} satisfies Record<string, Measure>;
type Key = keyof typeof M;
const KEYS = (Object.keys(M) as Key[]).filter((k) => ONLY.has(M[k].of));

interface Side {
  build: Build;
  label: string;
  dataDir?: string;
  server?: BenchServer;
  /** Threads of that server as it first answered, before any load. */
  idleThreads?: number;
  bare?: { url: string; pid: number; stop: () => Promise<void> };
  /** Bare Koa sending search answers of this side's server. */
  bareSearch?: { url: string; pid: number; stop: () => Promise<void> };
  figures: Partial<Record<Key, number[]>>;
  /** Requests that did not get a 2xx, per load: a failed request's load is named in the report. */
  failed: Map<string, number>;
}

const failures = (r: ClosedLoopResult): number => r.errors + [...r.statuses].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0);
const countFailed = (side: Side, load: string, count: number): void => {
  if (count > 0) side.failed.set(load, (side.failed.get(load) ?? 0) + count);
};
const spreadOf = (values: number[]): number => (Math.max(...values.map((v) => Math.abs(v - median(values)))) / median(values)) * 100;

/** Starts `side`'s server on its own copy of the search tenant, with its views, and its two bare Koas. */
async function prepare(side: Side, data: SearchTenant, unseen: ReturnType<typeof unseenPaths>): Promise<void> {
  side.dataDir = fs.mkdtempSync(`${data.dir}-copy-`);
  fs.cpSync(data.dir, side.dataDir, { recursive: true });
  side.server = await startServer({ DATA_DIR: side.dataDir }, { build: side.build });
  side.idleThreads = threadsOf(side.server.pid);
  await searchReady(side.server, path.join(side.dataDir, path.relative(data.dir, data.kls)));
  for (let i = 0; i < VIEWS; i++) {
    const res = await fetch(`${side.server.url}/api/views`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant: 'kantonsspital', entity: 'cost_centres', name: `view ${i}`, params: { sort: 'budget_chf', page: i } }),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${side.label}: POST /api/views answered ${res.status}`);
  }
  const answer = await fetchAnswer(side.server.url + TENANTS_PATH);
  if (answer.status !== 200) throw new Error(`${side.label}: ${TENANTS_PATH} answered ${answer.status}`);
  side.bare = await startBareKoa([answer], side.build);
  const bare = await fetchAnswer(side.bare.url + TENANTS_PATH);
  if (!bare.body.equals(answer.body)) throw new Error(`${side.label}: bare Koa does not send the same bytes`);
  if (ONLY.has('search')) {
    // the first queries of the cycle: they leave the result cache long before the loads come back to them
    const answers = [];
    for (const searchPath of unseen.paths.slice(0, SEARCH_ANSWERS)) {
      const searched = await fetchAnswer(side.server.url + searchPath);
      if (searched.status !== 200) throw new Error(`${side.label}: ${searchPath} answered ${searched.status}`);
      answers.push(searched);
    }
    side.bareSearch = await startBareKoa(answers, side.build);
  }
}

/** One round of `side`: each measure in turn, its figures appended. */
async function round(side: Side, unseen: ReturnType<typeof unseenPaths> | null, pristineTenants: string, tenants: string[]): Promise<void> {
  const got: Partial<Record<Key, number>> = {};
  const server = side.server === undefined ? undefined : { url: side.server.url, pid: side.server.pid };
  const options = { seconds: SECONDS, connections: CONNECTIONS };
  let bareRps = Number.NaN;
  if (server !== undefined && (ONLY.has('jumpbar') || ONLY.has('search'))) {
    const bare = await closedLoop(side.bare!, [TENANTS_PATH], options);
    countFailed(side, 'bare Koa', failures(bare));
    bareRps = bare.rps;
  }
  if (server !== undefined && ONLY.has('jumpbar')) {
    const small = await closedLoop(server, [TENANTS_PATH], options);
    countFailed(side, 'mode=tenants', failures(small));
    Object.assign(got, { tenantsRps: small.rps, bareRps, tenantsRatio: small.rps / bareRps });
  }
  if (server !== undefined && ONLY.has('views')) {
    const views = await closedLoop(server, [VIEWS_PATH], options);
    countFailed(side, 'views', failures(views));
    got.viewsRps = views.rps;
  }
  if (server !== undefined && unseen !== null && ONLY.has('search')) {
    const bareSearch = await closedLoop(side.bareSearch!, unseen.paths, options);
    countFailed(side, 'bare Koa, search answers', failures(bareSearch));
    await closedLoop(server, unseen.next, { seconds: SEARCH_WARMUP, connections: CONNECTIONS });
    const { closed, open } = await measureSearch(server, unseen, { ...options, rate: RATE });
    countFailed(side, 'search, closed loop', failures(closed));
    countFailed(side, `search, open loop (non-2xx ${open.non2xx}, network ${open.networkErrors}, timed out ${open.timedOut})`, open.non2xx + open.networkErrors + open.timedOut);
    Object.assign(got, { searchRps: closed.rps, bareSearchRps: bareSearch.rps, searchRatio: closed.rps / bareSearch.rps, searchCpu: closed.cpuMsPerRequest, openP99: open.latency.p99 });
  }
  if (side.server !== undefined && ONLY.has('idle')) {
    const pid = side.server.pid;
    // this build's threads end 30 s after their last job; an older build's may never end
    const [back] = await Promise.all([threadsBackTo(pid, side.idleThreads!, IDLE_THREADS_WITHIN_MS), sleep(IDLE * 1000)]);
    got.idleRss = side.server.rssMb();
    const threads = back ? `threads back to ${side.idleThreads}` : `threads NOT back to ${side.idleThreads} (${threadsOf(pid)})`;
    console.log(`${side.label}: idle RSS ${got.idleRss.toFixed(1)} MB (main arena ${mainArenaMb(pid).toFixed(1)}), ${threads}`);
  }
  if (ONLY.has('tenants')) {
    const run = await smallTenantsRun(side.build, pristineTenants, tenants, CONCURRENCY);
    countFailed(side, 'small tenants', run.failed);
    Object.assign(got, { tenantsRss: run.rssMb, tenantFiles: Math.max(run.kls, run.indexes) });
  }
  for (const key of KEYS) if (got[key] !== undefined) (side.figures[key] ??= []).push(got[key]);
  console.log(`${side.label}: ${KEYS.filter((k) => got[k] !== undefined).map((k) => `${k} ${fmt(got[k]!, M[k].digits)}`).join(', ')}`);
}

/** `median (±spread %) held|missed` of one side's figures. */
function cell(side: Side, key: Key): string {
  const values = side.figures[key] ?? [];
  if (values.length === 0) return '-';
  const m: Measure = M[key];
  const spread = spreadOf(values);
  const verdict = m.holds === undefined ? '' : m.holds(median(values), spread) ? ' held' : ' **missed**';
  return `${fmt(median(values), m.digits)} (±${fmt(spread, 0)} %)${verdict}`;
}

export async function run(args: string[]): Promise<void> {
  const ref = args[0];
  const builds = ref === undefined ? [thisBuild()] : [buildOf(ref), thisBuild()];
  const sides: Side[] = builds.map((build) => ({ build, label: `${build.label}, Node ${nodeVersion(build)}`, figures: {}, failed: new Map() }));
  console.log(`${QUICK ? 'QUICK RUN (REGRESS_QUICK=1: small data, short phases; not figures to quote)' : 'full run'}: ${sides.map((s) => s.label).join(' beside ')}; measures ${[...ONLY].join(', ')}`);
  const loads = ['jumpbar', 'views', 'search', 'idle'].some((m) => ONLY.has(m));
  const data = loads ? generateSearchTenant(ITEMS) : null;
  const pristineTenants = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-tenants-'));
  try {
    const tenants = ONLY.has('tenants') ? generateSmallTenants(pristineTenants, TENANTS) : [];
    const unseen = data === null ? null : unseenPaths(data.kls, 'kantonsspital', 40_000);
    if (data !== null) {
      for (const side of sides) await prepare(side, data, unseen!);
      // warm-up: a cold server's first seconds measure the JIT, not the build
      for (const side of sides) {
        const server = { url: side.server!.url, pid: side.server!.pid };
        await closedLoop(side.bare!, [TENANTS_PATH], { seconds: WARMUP, connections: CONNECTIONS });
        await closedLoop(server, [TENANTS_PATH], { seconds: WARMUP, connections: CONNECTIONS });
        if (ONLY.has('views')) await closedLoop(server, [VIEWS_PATH], { seconds: WARMUP, connections: CONNECTIONS });
        if (ONLY.has('search')) {
          await closedLoop(side.bareSearch!, unseen!.paths, { seconds: WARMUP, connections: CONNECTIONS });
          await closedLoop(server, unseen!.next, { seconds: WARMUP, connections: CONNECTIONS });
        }
      }
    }
    for (let r = 0; r < ROUNDS; r++) {
      console.log(`round ${r + 1} of ${ROUNDS}`);
      for (let i = 0; i < sides.length; i++) await round(sides[(i + r) % sides.length]!, unseen, pristineTenants, tenants);
    }
  } finally {
    for (const side of sides) {
      await side.server?.stop();
      await side.bare?.stop();
      await side.bareSearch?.stop();
      if (side.dataDir !== undefined) fs.rmSync(side.dataDir, { recursive: true, force: true });
    }
    data?.remove();
    fs.rmSync(pristineTenants, { recursive: true, force: true });
  }

  const current = sides[sides.length - 1]!;
  const older = sides.length > 1 ? sides[0]! : null;
  const rows = KEYS.map((key) => {
    const m: Measure = M[key];
    const ratio = older === null ? '' : ` ${fmt(median(current.figures[key] ?? []) / median(older.figures[key] ?? []), 2)} |`;
    return `| ${m.label} | ${m.goal ?? '-'} |${older === null ? '' : ` ${cell(older, key)} |`} ${cell(current, key)} |${ratio}`;
  });
  const failed = sides.filter((s) => s.failed.size > 0).map((s) => `${s.label}: ${[...s.failed].map(([load, n]) => `${n} in ${load}`).join(', ')}`);
  const markdown = [
    older === null ? '## The goals, this build' : `## The goals, this build beside ${older.build.label}`,
    '',
    `${sides.map((s) => s.label).join(' and ')}${older === null ? '' : ', side by side'}; response validation on, default logging;`,
    `${ROUNDS} rounds${older === null ? '' : ', each build in turn (the order rotates)'}, ${SECONDS} s per load after ${WARMUP} s of warm-up per load; closed loop at`,
    `${CONNECTIONS} connections, open loop latency from the due time; bare Koa on each build's Node.js with its \`start\` flags;`,
    ONLY.has('tenants') ? `${TENANTS.toLocaleString('en-US')} small tenants served ${CONCURRENCY} at a time by a fresh server on a fresh copy every round.` : '',
    'Each cell: the median of the rounds (± the largest distance of a round from it) and whether the goal held.',
    '',
    `| measure | goal |${older === null ? '' : ` ${older.label} |`} ${current.label} |${older === null ? '' : ' ratio |'}`,
    `|---|---|---|${older === null ? '' : '---|---|'}`,
    ...rows,
    ...(failed.length > 0 ? ['', `Failed requests: ${failed.join('; ')}.`] : []),
  ].join('\n');
  console.log(`\n${markdown}`);
  if (!QUICK && ONLY.size === ALL.length) writeBenchSection('regress', markdown, `npm run bench -- regress${ref === undefined ? '' : ` ${ref}`}`);
  if (failed.length > 0) process.exitCode = 1;
}
