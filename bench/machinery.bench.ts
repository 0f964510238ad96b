// `npm run bench -- machinery`: the search goals with and without the machinery bought for speed, side by side in
// one run. Two servers as `npm start` runs them, on the same three 200,000-item tenants (finished sidecars): as
// shipped, and without names in memory (SEARCH_MEMORY_MB=0). Each round takes both servers in turn (the order
// rotates): unseen queries open loop at 1,000 req/s (latency from the due time), then closed loop at 50
// connections. The medians of the rounds go into docs/benchmarks.md beside the goals: search p99 ≤ 20 ms at 1,000
// unseen queries per second open loop, ≥ 3,000 unseen queries per second closed loop at 50 connections.
// Each server is warmed first by MACHINERY_WARMUP_SECONDS (10) of closed-loop unseen queries.
// MACHINERY_ROUNDS, MACHINERY_SECONDS and MACHINERY_ITEMS change the run (defaults 3, 8, 200,000).
import fs from 'node:fs';
import path from 'node:path';
import { namesSettledOrQuiet, sidecarOf, startBenchServer, waitFor, type BenchServer } from './bench-server.js';
import { closedLoop } from './closed-loop.js';
import { openLoop } from './open-loop.js';
import { writeBenchSection } from './report.js';
import { generateSearchData } from './scale/search.js';
import { coldQueries, searchPath } from './search-queries.js';
import { fmt, median } from './stats.js';

const ROUNDS = Number(process.env['MACHINERY_ROUNDS'] ?? 3);
const SECONDS = Number(process.env['MACHINERY_SECONDS'] ?? 8);
const ITEMS = Number(process.env['MACHINERY_ITEMS'] ?? 200_000);
/** Seconds of closed-loop unseen queries each server gets before the rounds: V8 optimizes its hot paths meanwhile. */
const WARMUP = Number(process.env['MACHINERY_WARMUP_SECONDS'] ?? 10);
const RATE = 1000;
const CONNECTIONS = 50;

interface Arm {
  name: string;
  env: Record<string, string>;
  server?: BenchServer;
  openP50: number[];
  openP99: number[];
  openFailed: number[];
  closedRps: number[];
  closedP99: number[];
  cpuMs: number[];
  rssMb: number[];
}

const arm = (name: string, env: Record<string, string>): Arm => ({ name, env, openP50: [], openP99: [], openFailed: [], closedRps: [], closedP99: [], cpuMs: [], rssMb: [] });

export async function run(): Promise<void> {
  const data = generateSearchData(ITEMS);
  const arms = [
    arm('as shipped', {}),
    arm('no names in memory', { SEARCH_MEMORY_MB: '0' }),
  ];
  try {
    const klsDir = path.join(data.dir, 'kls');
    const klsFiles = fs.readdirSync(klsDir).flatMap((pack) => fs.readdirSync(path.join(klsDir, pack)).map((slug) => path.join(klsDir, pack, slug, 'kls.sqlite')));
    const builder = await startBenchServer({ DATA_DIR: data.dir });
    try {
      await waitFor('search indexes built', () => klsFiles.every((file) => sidecarOf(file) !== undefined), 600_000);
    } finally {
      await builder.stop();
    }
    for (const a of arms) {
      a.server = await startBenchServer({ DATA_DIR: data.dir, ...a.env });
      await namesSettledOrQuiet(a.server, a.env['SEARCH_MEMORY_MB'] === '0' ? 0 : data.tenants, 3000);
    }
    const paths = coldQueries(data.kls, 20_000).map((q) => searchPath('kantonsspital', q));
    let next = 0;
    // a cold server in the first round measured seconds of open-loop p99 that no later round showed
    for (const a of arms) await closedLoop({ url: a.server!.url }, () => paths[next++ % paths.length]!, { seconds: WARMUP, connections: CONNECTIONS });
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < arms.length; i++) {
        const a = arms[(i + round) % arms.length]!;
        const server = a.server!;
        const open = await openLoop({ url: server.url, paths, rate: RATE, seconds: SECONDS, warmupSeconds: 1, startAt: next });
        next = open.nextPath;
        a.openP50.push(open.latency.p50);
        a.openP99.push(open.latency.p99);
        a.openFailed.push(open.non2xx + open.networkErrors + open.timedOut);
        const closed = await closedLoop({ url: server.url, pid: server.pid }, () => paths[next++ % paths.length]!, { seconds: SECONDS, connections: CONNECTIONS });
        a.closedRps.push(closed.rps);
        a.closedP99.push(closed.p99);
        a.cpuMs.push(closed.cpuMsPerRequest);
        a.rssMb.push(server.rssMb());
        console.log(`round ${round + 1}, ${a.name}: open ${RATE}/s p50 ${fmt(open.latency.p50, 2)} p99 ${fmt(open.latency.p99, 2)} ms; closed ${fmt(closed.rps, 0)} req/s p99 ${fmt(closed.p99)} ms, ${fmt(closed.cpuMsPerRequest, 3)} ms CPU/request; RSS ${fmt(server.rssMb())} MB`);
      }
    }
  } finally {
    await Promise.all(arms.map((a) => a.server?.stop()));
    data.remove();
  }
  const base = arms[0]!;
  const ok = (p99: number, rps: number, failed: number) => (p99 <= 20 && rps >= 3000 && failed === 0 ? 'both met' : [p99 > 20 ? 'p99 missed' : '', rps < 3000 ? 'throughput missed' : '', failed > 0 ? `${failed} failed` : ''].filter(Boolean).join(', '));
  const rows = arms.map((a) => {
    const [p50, p99, rps, cp99, cpu, rss, failed] = [median(a.openP50), median(a.openP99), median(a.closedRps), median(a.closedP99), median(a.cpuMs), median(a.rssMb), a.openFailed.reduce((s, n) => s + n, 0)];
    return `| ${a.name} | ${fmt(p50, 2)} | ${fmt(p99, 2)} | ${fmt(rps, 0)} | ${fmt(rps / median(base.closedRps), 2)} | ${fmt(cp99)} | ${fmt(cpu, 3)} | ${fmt(rss)} | ${ok(p99, rps, failed)} |`;
  });
  writeBenchSection(
    'machinery',
    [
      '## Search machinery: with and without',
      '',
      `Two servers as \`npm start\` runs them on the same three ${ITEMS.toLocaleString('en-US')}-item tenants, side by side: as shipped, and with`,
      '`SEARCH_MEMORY_MB=0` (no names in memory: every search runs the sidecar\'s statements).',
      `Each server warmed by ${WARMUP} s of closed-loop unseen queries, then ${ROUNDS} rounds, each server in turn (the order rotates); unseen queries, open loop at ${RATE.toLocaleString('en-US')} req/s for ${SECONDS} s (latency from the due time), then closed loop at ${CONNECTIONS} connections for ${SECONDS} s;`,
      'medians of the rounds. Goals: open-loop p99 ≤ 20 ms, closed loop ≥ 3,000 req/s.',
      '',
      `| server | open p50 ms | open p99 ms | closed req/s | req/s vs shipped | closed p99 ms | server CPU ms/request | RSS MB | goals |`,
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
}
