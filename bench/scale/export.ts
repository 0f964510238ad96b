// The 1,000,000-row materials export of bench/export.bench.ts: timed alone by a download client in its own process,
// against `sqlite3 -csv` of the same SELECT to /dev/null; the server's RSS growth = peak during the exports - RSS
// before them (once its start-up work, index builds and names loads, is over). The peak is VmHWM, reset before the
// exports through /proc/<pid>/clear_refs where the kernel allows it, else the maximum of VmRSS sampled every 20 ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../../src/demo/generate.js';
import { namesSettledOrQuiet, sidecarOf, sleep, startBenchServer, waitFor, type BenchServer } from '../bench-server.js';
import { exportSelect, hasSqliteCli, timeCli, timeExport } from '../export-timing.js';
import type { ScaleSettings } from './settings.js';
import { middle, num, printRow, rowOf, type Row, type Verdict } from './table.js';

/** Resets the process's VmHWM to its current RSS; false when the kernel refuses. */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export async function measureExport(settings: ScaleSettings): Promise<Row> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-scale-export-'));
  let server: BenchServer | null = null;
  try {
    const rows = settings.exportRows;
    let started = performance.now();
    const demo = generateDemo({ out: dataDir, tenants: 3, rows });
    console.log(`export data: 3 tenants, ${rows.toLocaleString('en-US')} material rows each (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    const file = demo.tenants.find((t) => t.compositeId === 'ost.kantonsspital')!.file;
    server = await startBenchServer({ DATA_DIR: dataDir });
    const pid = server.pid;
    await waitFor('search indexes built', () => demo.tenants.every((t) => sidecarOf(t.file) !== undefined), 300_000);
    await namesSettledOrQuiet(server, demo.tenants.length, 5000);
    await sleep(1000);
    const before = server.rssMb();
    const reset = resetPeak(pid);
    let sampled = before;
    const sampler = setInterval(() => {
      try {
        sampled = Math.max(sampled, server!.rssMb());
      } catch {
        // the server is gone; the exports will say why
      }
    }, 20);
    const times: number[] = [];
    try {
      for (let run = 1; run <= settings.exportRuns; run++) {
        const result = await timeExport(`${server.url}/kantonsspital/dimensions/materials/export`);
        if (result.truncated) throw new Error(`a ${rows}-row table must not be truncated`);
        times.push(result.ms);
        console.log(`export run ${run}: ${result.ms.toFixed(0)} ms, ${(result.bytes / 1048576).toFixed(1)} MiB`);
      }
    } finally {
      clearInterval(sampler);
    }
    const peak = reset ? Math.max(server.peakMb(), sampled) : sampled;
    const growth = peak - before;
    const serverMs = middle(times);
    console.log(
      `server export: median ${serverMs.toFixed(0)} ms over ${times.length} runs; RSS ${num(before)} MB before, peak ${num(peak)} MB ` +
        `(${reset ? 'VmHWM reset before the exports' : 'VmHWM could not be reset: sampled VmRSS'}) -> growth ${num(growth)} MB`,
    );
    let measured = `RSS growth ${num(growth)} MB (${num(before)} -> ${num(peak)} MB)`;
    let verdict: Verdict = growth < 64 ? 'unchecked' : 'MISSED';
    let note: string | undefined;
    if (hasSqliteCli()) {
      const select = exportSelect(file, 'dim_materials', rows);
      const cli: number[] = [];
      for (let run = 0; run < settings.exportRuns; run++) cli.push(timeCli(file, select));
      const cliMs = middle(cli);
      const ratio = serverMs / cliMs;
      console.log(`sqlite3 -csv, same SELECT, to /dev/null: median ${cliMs.toFixed(0)} ms over ${cli.length} runs; server / CLI ${ratio.toFixed(2)}x`);
      measured = `${ratio.toFixed(2)}× (server ${num(serverMs)} ms, CLI ${num(cliMs)} ms); ${measured}`;
      verdict = ratio <= 1.5 && growth < 64 ? 'met' : 'MISSED';
    } else {
      console.log('skipped: no sqlite3 CLI');
      measured = `time ratio skipped: no sqlite3 CLI (server ${num(serverMs)} ms); ${measured}`;
      note = 'no sqlite3 CLI';
    }
    const row = rowOf('export', measured, verdict, note);
    printRow(row);
    return row;
  } finally {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
