// A 1,000,000-row dimension export (`materials`) through the built server, timed alone, against the sqlite3
// command-line program running the same SELECT in the same run; peak RSS of the server over all exports; p95 of
// small requests sent during one more export.
// Targets: at most 2x the CLI's time, server peak RSS under 150 MB, small requests p95 under 50 ms.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { fmt, median, percentile, procStatusKb } from './stats.js';
import { freePort } from '../test/helpers/ports.js';
import { serverArgs } from './server-command.js';
import { exportSelect, hasSqliteCli, timeCli, timeExport } from './export-timing.js';

const ROWS = 1_000_000;
const RUNS = 3;
const SMALL_REQUEST_GAP_MS = 10;

/** Small requests one after the other until `done()`; their latencies in ms. */
async function smallRequestsUntil(base: string, done: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  const paths = ['/api/db-status/kantonsspital', '/kantonsspital/taxonomies/cardinality/member?id=KST-4100'];
  for (let i = 0; !done(); i += 1) {
    const started = performance.now();
    const res = await fetch(base + paths[i % paths.length]!);
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, SMALL_REQUEST_GAP_MS));
  }
  return latencies;
}

export async function run(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-export-'));
  let server: ReturnType<typeof spawn> | null = null;
  try {
    let started = performance.now();
    const summary = generateDemo({ out: dataDir, tenants: 3, rows: ROWS });
    console.log(`generated ${ROWS} material rows per tenant in ${fmt((performance.now() - started) / 1000)} s`);
    const file = summary.tenants.find((t) => t.compositeId === 'ost.kantonsspital')!.file;
    const select = exportSelect(file, 'dim_materials', ROWS);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, serverArgs(), {
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'error' },
      stdio: 'ignore',
    });
    const pid = server.pid!;
    started = performance.now();
    for (;;) {
      try {
        if ((await fetch(`${base}/health`)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 30_000) throw new Error('server not healthy within 30 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const rssAtStartMb = procStatusKb(pid, 'VmRSS') / 1024;

    // The exports are timed alone, as the CLI runs alone; then one more export runs while small requests are
    // sent, for their latency (that run's time is printed but not compared with the CLI).
    const exportTimes: number[] = [];
    let peakSampledMb = 0;
    let smallLatencies: number[] = [];
    const sampler = setInterval(() => (peakSampledMb = Math.max(peakSampledMb, procStatusKb(pid, 'VmRSS') / 1024)), 50);
    try {
      for (let runIndex = 0; runIndex < RUNS; runIndex += 1) {
        const result = await timeExport(`${base}/kantonsspital/dimensions/materials/export`);
        if (result.truncated) throw new Error('a 1,000,000-row table must not be truncated');
        exportTimes.push(result.ms);
        console.log(`export run ${runIndex + 1} (alone): ${fmt(result.ms)} ms, ${fmt(result.bytes / 1048576)} MiB`);
      }
      let finished = false;
      const exporting = timeExport(`${base}/kantonsspital/dimensions/materials/export`).finally(() => (finished = true));
      const [withSmall, small] = await Promise.all([exporting, smallRequestsUntil(base, () => finished)]);
      console.log(`export run with small requests meanwhile: ${fmt(withSmall.ms)} ms, ${small.length} small requests`);
      smallLatencies = small;
    } finally {
      clearInterval(sampler);
    }
    const peakMb = procStatusKb(pid, 'VmHWM') / 1024;
    const serverMs = median(exportTimes);
    console.log(`server export of ${ROWS} rows, alone: median ${fmt(serverMs)} ms over ${RUNS} runs`);
    console.log(`server peak RSS (VmHWM): ${fmt(peakMb)} MB (at start ${fmt(rssAtStartMb)} MB, sampled max ${fmt(peakSampledMb)} MB) — target < 150 MB: ${peakMb < 150 ? 'met' : 'MISSED'}`);
    const p95 = percentile(smallLatencies, 95);
    console.log(`small requests during an export: n=${smallLatencies.length}, p50 ${fmt(median(smallLatencies))} ms, p95 ${fmt(p95)} ms — target < 50 ms: ${p95 < 50 ? 'met' : 'MISSED'}`);

    if (!hasSqliteCli()) {
      console.log('sqlite3 command-line program not found: CLI comparison skipped (install it, e.g. `apt-get install -y sqlite3`)');
      return;
    }
    const cliTimes: number[] = [];
    for (let runIndex = 0; runIndex < RUNS; runIndex += 1) cliTimes.push(timeCli(file, select));
    const cliMs = median(cliTimes);
    const ratio = serverMs / cliMs;
    console.log(`sqlite3 -csv, same SELECT, to /dev/null: median ${fmt(cliMs)} ms over ${RUNS} runs`);
    console.log(`server / CLI: ${fmt(ratio, 2)}x — target <= 2x: ${ratio <= 2 ? 'met' : 'MISSED'}`);
  } finally {
    if (server !== null && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server!.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
