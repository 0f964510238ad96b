// `npm run bench -- tracing`: what tracing costs. The built server without any OTEL_* variable (off), with
// OTEL_EXPORTER_OTLP_ENDPOINT set (on: every request sampled) and with 10% of the traces kept, spans sent as
// http/protobuf to a local sink that reads each export and answers as a collector does, each server on its own
// copy of the demo data, side by side: rounds alternate between the servers and the medians are compared. Two
// requests: a small operation answered from memory (GET /api/jumpbar?mode=tenants) and a search (queries the
// server has not seen: the index runs). Closed loop (requests per second, p99, the server's CPU per request) and
// open loop (p50 and p99 counted from the due time, at 40% of the rate the slowest server reached closed, so that
// every server keeps up). Each round takes the servers in another order, and a run starts only when every server
// is idle again (a server with tracing on goes on sending spans for a moment after its load).
// TRACING_BENCH_BEFORE=<checkout with dist/> adds a server built from another commit (the build before tracing):
// off against it shows what the code costs while tracing is off. Writes its section of docs/benchmarks.md.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { freePort } from '../test/helpers/ports.js';
import { namesSettledOrQuiet, serverEnv, sidecarOf, startBenchServer, stopChild, untilHealthy, waitFor, type BenchServer } from './bench-server.js';
import { closedLoop, type ClosedLoopResult } from './closed-loop.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { writeBenchSection } from './report.js';
import { coldQueries, searchPath } from './search-queries.js';
import { serverArgs } from './server-command.js';
import { fmt, median, procCpuMs } from './stats.js';

const ROUNDS = Number(process.env['TRACING_BENCH_ROUNDS'] ?? 5);
const SECONDS = Number(process.env['TRACING_BENCH_SECONDS'] ?? 5);
const CONNECTIONS = 16;

interface Arm {
  name: string;
  server: { url: string; pid: number; stop(): Promise<void> };
  bench?: BenchServer;
}

/** A sink for OTLP/HTTP exports: reads each body and answers an empty ExportTraceServiceResponse. */
async function startSink(): Promise<{ url: string; exports: () => number; bytes: () => number; close(): Promise<void> }> {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': '0' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The build of another checkout (its dist/), started with this package's node flags on `dataDir`. */
async function startOtherBuild(checkout: string, dataDir: string): Promise<Arm['server']> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const flags = serverArgs().slice(0, -1);
  const child = spawn(process.execPath, [...flags, path.join(checkout, 'dist', 'src', 'main.js')], {
    cwd: checkout,
    env: serverEnv({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await untilHealthy(url, 120_000, child);
  return { url, pid: child.pid as number, stop: () => stopChild(child) };
}

/** Waits until no server uses more than 10% of a core over 300 ms (at most 5 s). */
async function untilIdle(arms: readonly Arm[]): Promise<void> {
  const cpu = (): number => arms.reduce((sum, arm) => sum + procCpuMs(arm.server.pid), 0);
  for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
    const before = cpu();
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (cpu() - before <= 30 * arms.length) return;
  }
}

/** The arms in round `round`'s order: each arm comes after each other one in turn. */
const rotated = <T>(arms: readonly T[], round: number): T[] => arms.map((_, i) => arms[(i + round) % arms.length]!);

const describe = (r: ClosedLoopResult): string =>
  `${fmt(r.rps, 0)} req/s, p99 ${fmt(r.p99)} ms, CPU ${fmt(r.cpuMsPerRequest, 3)} ms/req, statuses ${[...r.statuses].map(([s, n]) => `${s}x${n}`).join(' ')}`;
const describeOpen = (r: OpenLoopResult): string =>
  `p50 ${fmt(r.latency.p50, 2)} ms, p99 ${fmt(r.latency.p99, 2)} ms, statuses ${Object.entries(r.statuses).map(([s, n]) => `${s}x${n}`).join(' ')}`;

export async function run(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-tracing-'));
  const sink = await startSink();
  const arms: Arm[] = [];
  try {
    const template = path.join(root, 'template');
    const demo = generateDemo({ out: template });
    const kls = demo.tenants.find((t) => t.compositeId === 'ost.kantonsspital')?.file as string;
    const copy = (name: string): string => {
      const dir = path.join(root, name);
      fs.cpSync(template, dir, { recursive: true });
      return dir;
    };
    const started = async (name: string, env: Record<string, string>): Promise<Arm> => {
      const dataDir = copy(name);
      const bench = await startBenchServer({ DATA_DIR: dataDir, ...env });
      const arm: Arm = { name, server: bench, bench };
      arms.push(arm);
      // the background index builds and name loads end before anything is measured
      await waitFor(`${name}: search indexes`, () => demo.tenants.every((t) => sidecarOf(path.join(dataDir, path.relative(template, t.file))) !== undefined));
      await namesSettledOrQuiet(bench, demo.tenants.length, 3000);
      return arm;
    };
    await started('off', {});
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' };
    await started('on', tracing);
    await started('on, 10% sampled', { ...tracing, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' });
    const before = process.env['TRACING_BENCH_BEFORE'];
    if (before !== undefined && before !== '') {
      const dataDir = copy('before');
      const server = await startOtherBuild(path.resolve(before), dataDir);
      arms.push({ name: 'before', server });
      await waitFor('before: search indexes', () => demo.tenants.every((t) => sidecarOf(path.join(dataDir, path.relative(template, t.file))) !== undefined));
    }

    const queries = coldQueries(kls, 20_000);
    const workloads: { name: string; paths: (arm: Arm) => () => string }[] = [
      { name: 'small operation (`GET /api/jumpbar?mode=tenants`)', paths: () => () => '/api/jumpbar?mode=tenants' },
      {
        name: 'search (unseen queries)',
        // each server gets the queries in the same order, none of them seen by it before
        paths: () => {
          let next = 0;
          return () => searchPath('kantonsspital', queries[next++ % queries.length]!);
        },
      },
    ];
    const rows: string[] = [];
    for (const workload of workloads) {
      const paths = new Map(arms.map((arm) => [arm, workload.paths(arm)]));
      for (const arm of arms) await closedLoop(arm.server, paths.get(arm)!, { seconds: 2, connections: CONNECTIONS }); // JIT warm-up
      const closed = new Map<Arm, ClosedLoopResult[]>(arms.map((arm) => [arm, []]));
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const arm of rotated(arms, round)) {
          await untilIdle(arms);
          const result = await closedLoop(arm.server, paths.get(arm)!, { seconds: SECONDS, connections: CONNECTIONS });
          closed.get(arm)!.push(result);
          console.log(`${workload.name}, round ${round + 1}, ${arm.name}, closed loop: ${describe(result)}`);
        }
      }
      const slowest = Math.min(...arms.map((arm) => median(closed.get(arm)!.map((r) => r.rps))));
      const rate = Math.max(50, Math.round((slowest * 0.4) / 50) * 50);
      const open = new Map<Arm, OpenLoopResult[]>(arms.map((arm) => [arm, []]));
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const arm of rotated(arms, round)) {
          await untilIdle(arms);
          const fixed = [...Array.from({ length: rate * (SECONDS + 1) }, paths.get(arm)!)];
          const result = await openLoop({ url: arm.server.url, paths: fixed, rate, seconds: SECONDS, warmupSeconds: 1 });
          open.get(arm)!.push(result);
          console.log(`${workload.name}, round ${round + 1}, ${arm.name}, open loop ${rate}/s: ${describeOpen(result)}`);
        }
      }
      const figure = (arm: Arm, measure: (a: Arm) => number[]): number => median(measure(arm));
      const measures: [string, (a: Arm) => number[], number][] = [
        ['closed loop req/s', (a) => closed.get(a)!.map((r) => r.rps), 0],
        ['closed loop p99 ms', (a) => closed.get(a)!.map((r) => r.p99), 1],
        ['server CPU ms/request', (a) => closed.get(a)!.map((r) => r.cpuMsPerRequest), 3],
        [`open loop ${rate}/s p50 ms`, (a) => open.get(a)!.map((r) => r.latency.p50), 2],
        [`open loop ${rate}/s p99 ms`, (a) => open.get(a)!.map((r) => r.latency.p99), 2],
      ];
      for (const [label, measure, digits] of measures) {
        const off = figure(arms[0]!, measure);
        const cells = arms.map((arm) => fmt(figure(arm, measure), digits));
        const ratios = arms.slice(1).map((arm) => fmt(figure(arm, measure) / off, 2));
        rows.push(`| ${workload.name} | ${label} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`);
      }
    }
    const dropped = arms
      .flatMap((arm) => arm.bench?.logged('Dropped') ?? [])
      .reduce((sum, line) => sum + Number(/Dropped (\d+)/.exec(String(line['msg']))?.[1] ?? 0), 0);
    const others = arms.slice(1).map((arm) => arm.name);
    const markdown = [
      '## Tracing: the server with tracing off and on',
      '',
      `The built server without OTEL_* variables (off) and with \`OTEL_EXPORTER_OTLP_ENDPOINT\` set (on: every request sampled;`,
      '`on, 10% sampled`: `OTEL_TRACES_SAMPLER=traceidratio`, `OTEL_TRACES_SAMPLER_ARG=0.1`), spans sent as http/protobuf to a',
      'local sink that reads each export and answers, each server on its own copy of the demo data, in one',
      `run: ${ROUNDS} rounds alternating between the servers, medians of the rounds. Closed loop: ${CONNECTIONS} connections, ${SECONDS} s;`,
      `open loop: 40% of the rate the slowest server reached closed, latency from the due time, ${SECONDS} s after 1 s of warm-up.`,
      'Each round takes the servers in another order; a run starts when every server is idle.',
      before !== undefined && before !== '' ? `\`before\`: the build of another commit (\`TRACING_BENCH_BEFORE\`), the same way.` : '',
      '',
      `| request | measure | ${arms.map((arm) => arm.name).join(' | ')} | ${others.map((name) => `${name}/off`).join(' | ')} |`,
      `|---|---|${arms.map(() => '---').join('|')}|${others.map(() => '---').join('|')}|`,
      ...rows,
      '',
      `Spans sent by the servers with tracing on: ${sink.exports()} exports, ${fmt(sink.bytes() / 1048576)} MB; spans dropped by their queues: ${dropped}.`,
    ].filter((line, i, all) => line !== '' || all[i - 1] !== '');
    console.log(markdown.join('\n'));
    writeBenchSection('tracing', markdown.join('\n'));
  } finally {
    for (const arm of arms) await arm.server.stop();
    await sink.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
