// `npm run bench -- runtime`: this build on this Node.js (24, the project's runtime) beside the last build that ran
// on Node.js 20, on Node.js 20, side by side in one run. The older side is RUNTIME_BASE_REF (default: the commit
// before the move to Node 24), checked out into .tmp/bench-runtime/<commit> and installed there with Node
// RUNTIME_BASE_NODE (default 20.20.2, through scripts/node.sh) once; the same build cannot run on both, because
// better-sqlite3 13 (which Node 24 needs) crashes Node 20. Each server gets its own copy of the same data: three
// 200,000-item tenants (RUNTIME_ITEMS) and 20 saved views. Each round takes both servers in turn (the order rotates):
// the small in-memory operation, the views list and unseen searches closed loop at 50 connections, unseen searches
// open loop at 1,000 req/s (latency from the due time). Medians of RUNTIME_ROUNDS rounds (3) of RUNTIME_SECONDS (6).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { namesSettledOrQuiet, sidecarOf, startBenchServer, waitFor, type BenchServer } from './bench-server.js';
import { closedLoop } from './closed-loop.js';
import { openLoop } from './open-loop.js';
import { writeBenchSection } from './report.js';
import { generateSearchData } from './scale/search.js';
import { coldQueries, searchPath } from './search-queries.js';
import { fmt, median } from './stats.js';

const root = path.resolve(import.meta.dirname, '..');
const BASE_REF = process.env['RUNTIME_BASE_REF'] ?? 'a74508e';
const BASE_NODE = process.env['RUNTIME_BASE_NODE'] ?? '20.20.2';
const ROUNDS = Number(process.env['RUNTIME_ROUNDS'] ?? 3);
const SECONDS = Number(process.env['RUNTIME_SECONDS'] ?? 6);
const ITEMS = Number(process.env['RUNTIME_ITEMS'] ?? 200_000);
const VIEWS = 20;
const CONNECTIONS = 50;
const RATE = 1000;

interface Side {
  name: string;
  node: string;
  root: string;
  server?: BenchServer;
  dataDir?: string;
  figures: Record<Measure, number[]>;
}
type Measure = 'smallRps' | 'viewsRps' | 'searchRps' | 'searchCpuMs' | 'openP50' | 'openP99' | 'rssMb';
const MEASURES: Measure[] = ['smallRps', 'viewsRps', 'searchRps', 'searchCpuMs', 'openP50', 'openP99', 'rssMb'];

const capture = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string =>
  execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

/** The older side's checkout, installed and built with its Node once; its path and that Node's binary. */
function baseCheckout(): { root: string; node: string } {
  const commit = capture('git', ['rev-parse', '--verify', `${BASE_REF}^{commit}`], root);
  const dir = path.join(root, '.tmp', 'bench-runtime', commit);
  const withNode = { ...process.env, NODE_SH_VERSION: BASE_NODE };
  const nodeSh = path.join(root, 'scripts', 'node.sh');
  if (!fs.existsSync(path.join(dir, 'dist', 'src', 'main.js'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    capture('git', ['worktree', 'prune'], root);
    capture('git', ['worktree', 'add', '--detach', dir, commit], root);
    console.log(`runtime: installing ${commit.slice(0, 10)} with Node ${BASE_NODE} in ${path.relative(root, dir)}`);
    capture(nodeSh, ['npm', 'ci', '--no-audit', '--no-fund'], dir, withNode);
  }
  return { root: dir, node: capture(nodeSh, ['node', '-p', 'process.execPath'], dir, withNode) };
}

const side = (name: string, node: string, sideRoot: string): Side => ({
  name,
  node,
  root: sideRoot,
  figures: Object.fromEntries(MEASURES.map((m) => [m, []])) as unknown as Record<Measure, number[]>,
});

export async function run(): Promise<void> {
  const base = baseCheckout();
  const nodeVersion = (node: string) => capture(node, ['--version'], root);
  const sides = [side(`this build, Node ${nodeVersion(process.execPath)}`, process.execPath, root), side(`${BASE_REF}, Node ${nodeVersion(base.node)}`, base.node, base.root)];
  const data = generateSearchData(ITEMS);
  try {
    for (const s of sides) {
      s.dataDir = fs.mkdtempSync(`${data.dir}-copy-`);
      fs.cpSync(data.dir, s.dataDir, { recursive: true });
      const klsDir = path.join(s.dataDir, 'kls');
      const klsFiles = fs.readdirSync(klsDir).flatMap((pack) => fs.readdirSync(path.join(klsDir, pack)).map((slug) => path.join(klsDir, pack, slug, 'kls.sqlite')));
      s.server = await startBenchServer({ DATA_DIR: s.dataDir }, { node: s.node, root: s.root });
      await waitFor(`${s.name}: search indexes built`, () => klsFiles.every((file) => sidecarOf(file) !== undefined), 600_000);
      await namesSettledOrQuiet(s.server, data.tenants, 3000);
      for (let i = 0; i < VIEWS; i++) {
        const res = await fetch(`${s.server.url}/api/views`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ tenant: 'kantonsspital', entity: 'cost_centres', name: `view ${i}`, params: { sort: 'budget_chf', page: i } }),
        });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`${s.name}: POST /api/views answered ${res.status}`);
      }
    }
    const paths = coldQueries(data.kls, 40_000).map((q) => searchPath('kantonsspital', q));
    let next = 0;
    const nextPath = () => paths[next++ % paths.length]!;
    // warm-up: a cold server's first seconds measure the JIT, not the runtime
    for (const s of sides) await closedLoop({ url: s.server!.url }, nextPath, { seconds: SECONDS, connections: CONNECTIONS });
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < sides.length; i++) {
        const s = sides[(i + round) % sides.length]!;
        const target = { url: s.server!.url, pid: s.server!.pid };
        const small = await closedLoop(target, () => '/api/jumpbar?mode=tenants', { seconds: SECONDS, connections: CONNECTIONS });
        const views = await closedLoop(target, () => '/api/views?tenant=kantonsspital', { seconds: SECONDS, connections: CONNECTIONS });
        const search = await closedLoop(target, nextPath, { seconds: SECONDS, connections: CONNECTIONS });
        const open = await openLoop({ url: s.server!.url, paths, rate: RATE, seconds: SECONDS, warmupSeconds: 1, startAt: next });
        next = open.nextPath;
        const got: Record<Measure, number> = {
          smallRps: small.rps,
          viewsRps: views.rps,
          searchRps: search.rps,
          searchCpuMs: search.cpuMsPerRequest,
          openP50: open.latency.p50,
          openP99: open.latency.p99,
          rssMb: s.server!.rssMb(),
        };
        for (const m of MEASURES) s.figures[m].push(got[m]);
        console.log(
          `round ${round + 1}, ${s.name}: small ${fmt(small.rps, 0)} req/s, views ${fmt(views.rps, 0)} req/s, search ${fmt(search.rps, 0)} req/s ` +
            `(${fmt(search.cpuMsPerRequest, 3)} ms CPU), open ${RATE}/s p50 ${fmt(open.latency.p50, 2)} p99 ${fmt(open.latency.p99, 2)} ms, RSS ${fmt(got.rssMb)} MB`,
        );
      }
    }
  } finally {
    await Promise.all(sides.map((s) => s.server?.stop()));
    for (const s of sides) if (s.dataDir !== undefined) fs.rmSync(s.dataDir, { recursive: true, force: true });
    data.remove();
  }
  const [current, older] = sides as [Side, Side];
  const row = (label: string, m: Measure, digits: number) =>
    `| ${label} | ${fmt(median(current.figures[m]), digits)} | ${fmt(median(older.figures[m]), digits)} | ${fmt(median(current.figures[m]) / median(older.figures[m]), 2)} |`;
  writeBenchSection(
    'runtime',
    [
      '## Runtime: Node.js 24 beside Node.js 20',
      '',
      `This build on Node ${nodeVersion(process.execPath)} beside ${BASE_REF} (the last build on Node 20, with its own dependencies) on Node ${nodeVersion(base.node)},`,
      `side by side, each server on its own copy of three ${ITEMS.toLocaleString('en-US')}-item tenants and ${VIEWS} saved views, warmed by ${SECONDS} s of`,
      `unseen searches; ${ROUNDS} rounds, each server in turn (the order rotates), ${SECONDS} s per measure; closed loop at ${CONNECTIONS} connections,`,
      `open loop at ${RATE.toLocaleString('en-US')} req/s (latency from the due time); medians of the rounds.`,
      '',
      `| measure | ${current.name} | ${older.name} | ratio |`,
      '|---|---|---|---|',
      row('`GET /api/jumpbar?mode=tenants` closed loop, req/s', 'smallRps', 0),
      row(`\`GET /api/views\` (${VIEWS} views) closed loop, req/s`, 'viewsRps', 0),
      row('unseen searches closed loop, req/s', 'searchRps', 0),
      row('unseen searches, server CPU ms/request', 'searchCpuMs', 3),
      row(`unseen searches open loop ${RATE.toLocaleString('en-US')} req/s, p50 ms`, 'openP50', 2),
      row(`unseen searches open loop ${RATE.toLocaleString('en-US')} req/s, p99 ms`, 'openP99', 2),
      row('RSS after the rounds, MB', 'rssMb', 1),
    ].join('\n'),
  );
}
