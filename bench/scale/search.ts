// Unseen typeahead queries on a 200,000-item tenant: an open-loop sweep of the offered load (bench/open-loop.ts),
// charted, and the closed-loop throughput (autocannon). The server runs as `npm start` does, at the default
// LOG_LEVEL=info (to a file), once all three tenants' indexes are built and, after a restart on the finished
// sidecars (as bench/search.bench.ts), their names are in memory: the steady state of a running server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../../src/demo/generate.js';
import { namesSettled, sidecarOf, sleep, startBenchServer, waitFor, type BenchServer } from '../bench-server.js';
import { closedLoop, describeClosedLoop } from '../closed-loop.js';
import { describeOpenLoop, openLoop, type OpenLoopResult } from '../open-loop.js';
import { coldQueries, searchPath } from '../search-queries.js';
import { writeLineChart } from '../svg-chart.js';
import type { ScaleSettings } from './settings.js';
import { num, printRow, rowOf, verdictOf, type Row } from './table.js';

/** Three demo tenants with `searchItems` generated search items each; the first is `ost.kantonsspital`. */
export interface SearchData {
  dir: string;
  /** kantonsspital's KLS file. */
  kls: string;
  tenants: number;
  remove(): void;
}

export function generateSearchData(searchItems: number): SearchData {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-scale-search-'));
  const started = performance.now();
  const demo = generateDemo({ out: dir, tenants: 3, searchItems });
  console.log(`search data: 3 tenants, ${searchItems.toLocaleString('en-US')} generated search items each (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return {
    dir,
    kls: demo.tenants.find((t) => t.compositeId === 'ost.kantonsspital')!.file,
    tenants: demo.tenants.length,
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Starts a server on `data`, waits until every tenant's sidecar is built and its names are in memory. */
async function readyServer(data: SearchData, klsFiles: string[]): Promise<BenchServer> {
  const server = await startBenchServer({ DATA_DIR: data.dir });
  try {
    await waitFor('search indexes built', () => klsFiles.every((file) => sidecarOf(file) !== undefined), 600_000);
    await waitFor('search names in memory', () => namesSettled(server) >= data.tenants, 300_000);
    return server;
  } catch (err) {
    await server.stop();
    throw err;
  }
}

export async function measureSearch(settings: ScaleSettings, data: SearchData): Promise<Row[]> {
  const klsDir = path.join(data.dir, 'kls');
  const klsFiles = fs.readdirSync(klsDir).flatMap((pack) => fs.readdirSync(path.join(klsDir, pack)).map((slug) => path.join(klsDir, pack, slug, 'kls.sqlite')));
  let started = performance.now();
  const builder = await readyServer(data, klsFiles);
  console.log(`indexes built and names in memory after ${((performance.now() - started) / 1000).toFixed(1)} s (RSS ${num(builder.rssMb())} MB); restarting on the finished sidecars`);
  await builder.stop();
  started = performance.now();
  const server = await readyServer(data, klsFiles);
  const rows: Row[] = [];
  try {
    console.log(`restarted: names in memory after ${((performance.now() - started) / 1000).toFixed(1)} s, idle RSS ${num(server.rssMb())} MB (3 tenants)`);
    const queries = coldQueries(data.kls, 20_000);
    const paths = queries.map((q) => searchPath('kantonsspital', q));
    console.log(`unseen queries: ${paths.length} distinct substrings of kantonsspital's names, cycled (a query comes back ${paths.length} requests later, past the 256-entry result cache)`);

    const sweep: OpenLoopResult[] = [];
    let next = 0;
    for (const rate of settings.rates) {
      const result = await openLoop({ url: server.url, paths, rate, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, startAt: next });
      next = result.nextPath;
      sweep.push(result);
      console.log(`open loop ${describeOpenLoop(result)}; timed from the send instead: p50 ${num(result.fromSend.p50)} / p99 ${num(result.fromSend.p99)} ms`);
      await sleep(2000); // the server drains what the step left
    }
    writeLineChart(settings.chartFile, {
      title: `Unseen jumpbar queries on a ${settings.searchItems.toLocaleString('en-US')}-item tenant: latency under offered load`,
      subtitle: `${settings.quick ? 'QUICK RUN on small data (not figures to quote); ' : ''}open loop, latency from the due time; ${settings.seconds} s per step; ${os.cpus().length} cores; ${new Date().toISOString().slice(0, 10)}`,
      xLabel: 'offered load (requests per second)',
      yLabel: 'latency (ms, log scale)',
      series: [
        { label: 'p50', colour: '#1f5fa8', points: sweep.map((r) => [r.rate, r.latency.p50] as const) },
        { label: 'p99', colour: '#c0392b', points: sweep.map((r) => [r.rate, r.latency.p99] as const) },
      ],
      goals: [{ label: 'goal: p99 ≤ 20 ms', y: 20 }],
    });
    console.log(`sweep chart: ${path.relative(process.cwd(), settings.chartFile)}`);

    const step = sweep.find((r) => r.rate === settings.tableRate)!;
    const errors = step.non2xx + step.networkErrors + step.timedOut;
    const kept = step.achievedRate >= step.rate * 0.98;
    rows.push(
      rowOf(
        'openLoop',
        `p50 ${num(step.latency.p50)} ms, p99 ${num(step.latency.p99)} ms (p99.9 ${num(step.latency.p999)}, max ${num(step.latency.max)} ms; ${num(step.achievedRate)} req/s achieved; send lag p99 ${num(step.sendLag.p99)} ms; ${errors} errors)` +
          (settings.tableRate !== 1000 ? ` at ${settings.tableRate} req/s` : ''),
        errors > 0 || !kept ? 'MISSED' : verdictOf(step.latency.p99 <= 20),
        errors > 0 ? 'requests failed' : !kept ? 'the server did not keep up with the offered load' : undefined,
      ),
    );
    printRow(rows[0]!);

    const closed = await closedLoop({ url: server.url, pid: server.pid }, () => paths[next++ % paths.length]!, { seconds: settings.seconds, connections: settings.connections });
    console.log(`closed loop, ${settings.connections} connections, unseen queries: ${describeClosedLoop(closed)}`);
    const failed = closed.errors + [...closed.statuses].filter(([status]) => status < 200 || status >= 300).reduce((n, [, count]) => n + count, 0);
    rows.push(
      rowOf(
        'closedLoop',
        `${num(closed.rps)} req/s (p50 ${num(closed.p50)} ms, p99 ${num(closed.p99)} ms; server CPU ${closed.cpuMsPerRequest.toFixed(2)} ms per request${failed > 0 ? `; ${failed} failed` : ''})`,
        failed > 0 ? 'MISSED' : verdictOf(closed.rps >= 3000),
        failed > 0 ? 'requests failed' : undefined,
      ),
    );
    printRow(rows[1]!);
    console.log(`server RSS after the loads: ${num(server.rssMb())} MB (peak ${num(server.peakMb())} MB)`);
  } finally {
    await server.stop();
  }
  return rows;
}
