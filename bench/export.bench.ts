// `npm run bench -- export [<ref>]`: dimension exports and explain at 1,000,000 rows through the built server, beside
// the build of <ref> when one is given (bench/server.ts builds it; `.` with BENCH_BASE_ENV=READER_THREADS=off runs
// this build beside itself without reader threads), the builds taking turns:
//   - two exports of 1,000,000 rows, narrow rows (`lab.big`'s `big`: an integer, three short texts, a REAL and a
//     mostly empty text, about 82 MB of CSV) and wide rows (`materials`: names in three languages, about 188 MiB), each
//     downloaded by a client of its own and timed right beside `sqlite3 -csv` running the same SELECT to /dev/null,
//     server and CLI in turn (the order alternates), with the server's RSS growth over those exports (VmHWM reset
//     before them); every server runs once inside a memory cgroup of EXPORT_BENCH_LIMIT_MB (256) and once without a
//     limit, in alternating order;
//   - GET /health and searches on another tenant, each open loop (latency from the moment a request was due), on the
//     server without a limit: alone, while clients repeat an export that matches nothing sorted on an unindexed
//     column, while they download the whole export compressed (br), and while they repeat GET /api/explain without
//     entity_type over a 1,000,000-row Gold table whose entity column has no index.
// Goals (EXPORT_GOALS): export <= 2.5x the CLI and RSS growth < 64 MB, narrow and wide rows, inside the limit and
// without; p99 <= 50 ms while the costly requests run. The ratio is the median of each download over the CLI run
// beside it: on a loaded machine a ratio of neighbours holds where absolute times do not.
// `regress` measures them with the same functions; this bench prints every phase of every round.
// EXPORT_BENCH_ROWS, EXPORT_BENCH_ROUNDS (2: each build twice per limit, in turn), EXPORT_BENCH_RUNS (3 downloads per
// shape), EXPORT_BENCH_SECONDS, EXPORT_BENCH_LIMIT_MB and EXPORT_BENCH_LATENCY=0 (no latency phases) change the run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { RARE_MATERIAL, buildBigTenant } from '../test/helpers/big-tenant.js';
import { describeLatency, measureLatency, type LatencyPhase } from './export-latency.js';
import { exportSelect, hasSqliteCli, timeCli, timeExport } from './export-timing.js';
import { cgroupSupport, describeSupport, makeMemoryLimit, type CgroupSupport, type MemoryLimit } from './memory-limit.js';
import type { OpenLoopResult } from './open-loop.js';
import { writeBenchSection } from './report.js';
import { QUERIES, searchPath } from './search.js';
import { buildOf, resetPeak, sleep, startServer, thisBuild, type BenchServer, type Build } from './server.js';
import { fmt, median } from './stats.js';

const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
};
const ROWS = positive('EXPORT_BENCH_ROWS', 1_000_000);
const ROUNDS = positive('EXPORT_BENCH_ROUNDS', 2);
const SECONDS = positive('EXPORT_BENCH_SECONDS', 5);
const RUNS = positive('EXPORT_BENCH_RUNS', 3);
const LIMIT_MB = positive('EXPORT_BENCH_LIMIT_MB', 256);
const LATENCY = process.env['EXPORT_BENCH_LATENCY'] !== '0';
const RATE = 100;
/** Clients repeating the costly request (EXPORTS_PER_CALLER allows 2 exports per caller by default). */
const CLIENTS = 2;
const TENANTS = ['ost.kantonsspital', 'ost.rehaklinik', 'west.hopital-cantonal', 'lab.big'];
/** The `materials` export of `ost.kantonsspital`: wide rows. */
export const EXPORT_PATH = '/kantonsspital/dimensions/materials/export';
/** The `big` export of `lab.big`: narrow rows. */
const NARROW_PATH = '/lab.big/dimensions/big/export';
/** The export goals: time against `sqlite3 -csv`, the server's RSS growth, other clients' p99 meanwhile. */
export const EXPORT_GOALS = { cliRatio: 2.5, growthMb: 64, othersP99Ms: 50 } as const;
const PHASES = {
  'nothing else': null,
  'exports matching nothing, sorted on an unindexed column': { path: `${EXPORT_PATH}?q=no-such-text&sort=unit_price` },
  'the whole export, compressed (br)': { path: EXPORT_PATH, headers: { 'accept-encoding': 'br' } },
  'explain without entity_type, 1,000,000-row Gold table without index': { path: `/api/explain?tenant=lab.big&entity_id=${RARE_MATERIAL}` },
};

/** An export the goals time: its path on the server, and the file and table the CLI reads. */
export interface ExportShape {
  name: 'narrow' | 'wide';
  path: string;
  file: string;
  table: string;
}

/** One shape's downloads on one server: each beside its CLI run, and the RSS over them. */
export interface ShapeRun {
  shape: ExportShape['name'];
  serverMs: number[];
  cliMs: number[];
  /** Each download over the CLI run beside it. */
  ratios: number[];
  bytes: number;
  rssBefore: number;
  rssPeak: number;
}

/** What one build measured on one server (inside a limit or without). */
export interface BuildRound {
  build: Build;
  /** The memory limit the server was to run in, MB, or null (whether a cgroup applied it: `cgroupPeakMb` is a number). */
  limitMb: number | null;
  shapes: ShapeRun[];
  /** Whether the kernel killed the server (inside a limit). */
  killed: boolean;
  cgroupPeakMb: number;
  phases: LatencyPhase[];
}

/** The median of a shape's ratios, and its RSS growth. */
export const ratioOf = (run: ShapeRun): number => median(run.ratios);
export const growthOf = (run: ShapeRun): number => run.rssPeak - run.rssBefore;

/** Whether an open loop's p99 meets the goal, every request answered. */
const verdict = (result: OpenLoopResult): string => (result.latency.p99 <= EXPORT_GOALS.othersP99Ms && result.ok === result.requests ? 'met' : 'MISSED');

/** Other clients' worst p99 over the phases with costly requests, and the requests that failed in those phases. */
export function othersMeanwhile(round: BuildRound): { p99: number; failed: number } {
  const loaded = round.phases.filter((p) => p.costly !== null);
  const loops = loaded.flatMap((p) => [p.health, p.search]);
  const failed = loops.reduce((n, l) => n + l.requests - l.ok, 0) + loaded.reduce((n, p) => n + p.costly!.failed, 0);
  return { p99: Math.max(...loops.map((l) => l.latency.p99)), failed };
}

/** Writes the bench's data into `dir` (3 demo tenants of `rows` materials, `lab.big` of `rows` rows); answers the two exports. */
export function generateExportData(dir: string, rows: number): ExportShape[] {
  const started = performance.now();
  const demo = generateDemo({ out: dir, tenants: 3, rows });
  const big = path.join(dir, 'kls', 'lab', 'big', 'kls.sqlite');
  buildBigTenant(big, 'big', rows);
  console.log(`export data: 3 demo tenants with ${rows.toLocaleString('en-US')} materials each, lab.big with ${rows.toLocaleString('en-US')} rows (${fmt((performance.now() - started) / 1000)} s)`);
  return [
    { name: 'narrow', path: NARROW_PATH, file: big, table: 'dim_big' },
    { name: 'wide', path: EXPORT_PATH, file: demo.tenants.find((t) => t.compositeId === 'ost.kantonsspital')!.file, table: 'dim_materials' },
  ];
}

/** Resolves once every tenant's search index answers (they are built on start, in the background). */
async function searchesReady(url: string): Promise<void> {
  for (const tenant of TENANTS) {
    for (const deadline = Date.now() + 300_000; ; await sleep(200)) {
      const res = await fetch(url + searchPath(tenant, 'kosten'));
      await res.arrayBuffer();
      if (res.status === 200) break;
      if (Date.now() > deadline) throw new Error(`${tenant}: search not ready within 300 s`);
    }
  }
}

/** RUNS downloads of `shape`, each beside a CLI run of its SELECT (server first in even runs, CLI first in odd ones). */
async function measureShape(server: BenchServer, shape: ExportShape, rows: number, rssBefore: number): Promise<ShapeRun> {
  const select = exportSelect(shape.file, shape.table, rows);
  const cli = hasSqliteCli();
  const reset = resetPeak(server.pid);
  let sampled = rssBefore;
  const sampler = setInterval(() => (sampled = Math.max(sampled, server.rssMb())), 20);
  const run: ShapeRun = { shape: shape.name, serverMs: [], cliMs: [], ratios: [], bytes: 0, rssBefore, rssPeak: rssBefore };
  try {
    for (let i = 0; i < RUNS; i++) {
      const cliFirst = i % 2 === 1;
      const cliMs = cli && cliFirst ? timeCli(shape.file, select) : Number.NaN;
      const result = await timeExport(server.url + shape.path);
      if (result.truncated) throw new Error(`a ${rows}-row table must not be truncated`);
      const after = cli && !cliFirst ? timeCli(shape.file, select) : cliMs;
      run.serverMs.push(result.ms);
      run.cliMs.push(after);
      run.ratios.push(result.ms / after);
      run.bytes = result.bytes;
    }
  } finally {
    clearInterval(sampler);
  }
  run.rssPeak = reset ? Math.max(server.peakMb(), sampled) : sampled;
  return run;
}

/**
 * One round of `build` on the data of generateExportData: a server inside `limit` (or without one), each shape's
 * downloads beside the CLI, then, when `latency`, the latency phases.
 */
export async function measureExportBuild(
  build: Build,
  dataDir: string,
  shapes: readonly ExportShape[],
  options: { rows: number; seconds: number; limitMb?: number; memoryLimit?: MemoryLimit; latency?: boolean },
): Promise<BuildRound> {
  let server: BenchServer | null = null;
  const round: BuildRound = { build, limitMb: options.limitMb ?? null, shapes: [], killed: false, cgroupPeakMb: Number.NaN, phases: [] };
  const where = options.memoryLimit !== undefined ? `inside ${options.memoryLimit.limitMb} MB` : round.limitMb === null ? 'no limit' : `no limit (${round.limitMb} MB could not be applied)`;
  try {
    server = await startServer({ DATA_DIR: dataDir }, { build, memoryLimit: options.memoryLimit });
    await searchesReady(server.url);
    await sleep(1000);
    // each shape's peak against the RSS before the first export: the growth an export adds to a server that ran none
    const rssBefore = server.rssMb();
    for (const shape of shapes) {
      const run = await measureShape(server, shape, options.rows, rssBefore);
      round.shapes.push(run);
      console.log(
        `${build.label}, ${where}, ${shape.name} (${fmt(run.bytes / 1e6)} MB): server ${run.serverMs.map((t) => fmt(t, 0)).join(', ')} ms; ` +
          `CLI ${run.cliMs.map((t) => fmt(t, 0)).join(', ')} ms; ratios ${run.ratios.map((r) => fmt(r, 2)).join(', ')}; RSS ${fmt(run.rssBefore)} -> ${fmt(run.rssPeak)} MB`,
      );
    }
    if (options.latency === true) {
      round.phases = await measureLatency(server.url, {
        searchPaths: QUERIES.map((q) => searchPath('west.hopital-cantonal', q)),
        phases: PHASES,
        rate: RATE,
        seconds: options.seconds,
        warmupSeconds: 1,
        clients: CLIENTS,
      });
      for (const phase of round.phases) console.log(`  ${phase.name}: /health ${describeLatency(phase.health)} ms, search ${describeLatency(phase.search)} ms`);
    }
  } catch (err) {
    const kills = options.memoryLimit?.oomKills() ?? 0;
    if (kills === 0 && server?.ended() !== 'SIGKILL') throw err;
    round.killed = true;
    console.log(`${build.label}, ${where}: KILLED (${(err as Error).message})`);
  } finally {
    await server?.stop();
    round.killed ||= (options.memoryLimit?.oomKills() ?? 0) > 0;
    round.cgroupPeakMb = options.memoryLimit?.peakMb() ?? Number.NaN;
  }
  return round;
}

/** A server inside a fresh cgroup of `limitMb` when `support` allows one, else (said loudly) without a limit. */
async function withLimit<T>(support: CgroupSupport, limitMb: number, run: (limit?: MemoryLimit) => Promise<T>): Promise<T> {
  const limit = 'parent' in support ? makeMemoryLimit(support, limitMb) : undefined;
  try {
    return await run(limit);
  } finally {
    await limit?.remove();
  }
}

const span = (values: readonly number[], digits: number): string =>
  values.length === 0 ? '-' : `${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`;

export async function run(args: string[]): Promise<void> {
  const builds = [thisBuild(), ...args.slice(0, 1).map(buildOf)];
  const loadAtStart = os.loadavg().map((l) => l.toFixed(1)).join(', ');
  const support = cgroupSupport();
  console.log(describeSupport(support, LIMIT_MB));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-export-'));
  try {
    const shapes = generateExportData(dataDir, ROWS);
    if (!hasSqliteCli()) console.log('NO sqlite3 CLI on this machine: the ratios are not measured');
    const rounds: BuildRound[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? builds : [...builds].reverse();
      const limits = r % 2 === 0 ? [LIMIT_MB, null] : [null, LIMIT_MB];
      for (const limitMb of limits) {
        for (const build of order) {
          const options = { rows: ROWS, seconds: SECONDS };
          rounds.push(
            limitMb === null
              ? await measureExportBuild(build, dataDir, shapes, { ...options, latency: LATENCY })
              : await withLimit(support, limitMb, (memoryLimit) => measureExportBuild(build, dataDir, shapes, { ...options, limitMb, memoryLimit })),
          );
        }
      }
    }

    const limitLabel = (limitMb: number | null): string => (limitMb === null ? 'no limit' : 'parent' in support ? `${limitMb} MB` : `${limitMb} MB (NOT applied)`);
    const rows: string[] = [];
    for (const build of builds) {
      for (const limitMb of [LIMIT_MB, null]) {
        const served = rounds.filter((r) => r.build === build && r.limitMb === limitMb);
        for (const shape of shapes) {
          const runs = served.flatMap((r) => r.shapes.filter((s) => s.shape === shape.name));
          const ratios = runs.flatMap((s) => s.ratios);
          const growths = runs.map(growthOf);
          const ratio = median(ratios);
          const growth = median(growths);
          const killed = served.filter((r) => r.killed).length;
          rows.push(
            `| ${build.label} | ${limitLabel(limitMb)} | ${shape.name} (${fmt((runs[0]?.bytes ?? 0) / 1e6)} MB) | ${span(runs.flatMap((s) => s.serverMs), 0)} | ${span(runs.flatMap((s) => s.cliMs), 0)} | ` +
              `${span(ratios, 2)} ${ratio <= EXPORT_GOALS.cliRatio ? 'met' : 'MISSED'} | ${span(growths, 1)} ${growth < EXPORT_GOALS.growthMb ? 'met' : 'MISSED'} | ${killed} of ${served.length} |`,
          );
        }
      }
    }
    const exportTable = [
      '| build | memory limit | rows | server, ms | `sqlite3 -csv` beside it, ms | server / CLI | RSS growth, MB | killed |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
    ];
    const latencyRounds = rounds.filter((r) => r.phases.length > 0);
    const latencyTable = [
      '| build | round | meanwhile | GET /health | search, another tenant | costly requests done (median) |',
      '|---|---|---|---|---|---|',
      ...latencyRounds.flatMap((r) =>
        r.phases.map((p) => {
          const costly = p.costly === null ? '-' : `${p.costly.count} (${fmt(p.costly.medianMs, 0)} ms)${p.costly.failed > 0 ? `, ${p.costly.failed} failed` : ''}`;
          const goal = (loop: OpenLoopResult): string => (p.costly === null ? '' : ` ${verdict(loop)}`);
          const n = latencyRounds.filter((other) => other.build === r.build).indexOf(r) + 1;
          return `| ${r.build.label} | ${n} | ${p.name} | ${describeLatency(p.health)}${goal(p.health)} | ${describeLatency(p.search)}${goal(p.search)} | ${costly} |`;
        }),
      ),
    ];
    const compared = builds.length === 1 ? '' : `, side by side with ${builds.slice(1).map((b) => `\`${b.label}\``).join(', ')}, the builds taking turns`;
    const markdown = `## Dimension export and explain: time, memory, other clients' latency

The built server (started as \`npm start\` does) over 3 demo tenants of ${ROWS.toLocaleString('en-US')} materials each and
\`lab.big\` (${ROWS.toLocaleString('en-US')} rows in \`dim_big\` and in \`gold_big\`, whose entity column has no index)${compared};
${ROUNDS} round(s), each build once inside a ${LIMIT_MB} MB memory cgroup and once without a limit per round, the order alternating.
${describeSupport(support, LIMIT_MB)} Machine load average at the start: ${loadAtStart}.

Two unsorted exports of ${ROWS.toLocaleString('en-US')} rows: narrow rows (\`lab.big\`'s \`big\`: an integer, three short texts, a
REAL, a mostly empty text) and wide rows (\`materials\`). Each download by a client of its own is timed right beside
\`sqlite3 -csv\` running the same SELECT to /dev/null (server and CLI in turn, the order alternating), ${RUNS} per shape and server;
server / CLI is the median (range) of each download over the CLI run beside it. RSS growth: the server's peak RSS
over a shape's downloads (VmHWM reset before them) over its RSS before the first export (narrow rows go first). Goals: at most ${EXPORT_GOALS.cliRatio}x the CLI, growth under
${EXPORT_GOALS.growthMb} MB, never killed.

${exportTable.join('\n')}
${
  latencyRounds.length === 0
    ? ''
    : `
\`GET /health\` and a search on another tenant, each open loop at ${RATE} req/s for ${SECONDS} s (latency from the
moment a request was due), on the server without a limit, p50 / p99 in ms: alone, while ${CLIENTS} clients repeat an export of
${ROWS.toLocaleString('en-US')} rows whose \`q\` matches nothing sorted on an unindexed column, while they download the whole
\`materials\` export compressed (\`br\`), and while they repeat \`GET /api/explain\` without \`entity_type\`. Goal: p99 at most
${EXPORT_GOALS.othersP99Ms} ms while the costly requests run.

${latencyTable.join('\n')}
`
}`;
    console.log(`\n${markdown}`);
    // a smaller table, or a run without the latency phases, checks the harness; only the goal's full run is written
    if (ROWS === 1_000_000 && LATENCY) writeBenchSection('export', markdown, `npm run bench -- export${args.length > 0 ? ` ${args[0]}` : ''}`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
