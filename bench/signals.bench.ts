// Signal builder: p50 / p95 of validate and compile over HTTP on the built server (demo data), with the bundled
// checker and compiler as warm workers (the default) and as one process per request (SIGNAL_*_CMD set to the same
// CLIs). Target: p95 under 150 ms. Then hostile definitions (signal-costs.ts): parse costs per shape, and the
// hostile texts through validate, compile, save and list with /health open loop meanwhile.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { fmt, percentile } from './stats.js';
import { serverArgs } from './server-command.js';
import { hostileRequests, parseCosts } from './signal-costs.js';
import { freePort } from '../test/helpers/ports.js';

const root = path.resolve(import.meta.dirname, '..');
const TARGET_P95_MS = 150;
const WARM_RUNS = 200;
const COLD_RUNS = 30;
const CONCURRENCY = 4;

async function startBuilt(dataDir: string, port: number, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, serverArgs(), {
    // the bench sends hundreds of requests a minute from one address: the per-caller limit (60) is switched off
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'error', SIGNAL_TOOLS_PER_MINUTE: '0', ...env },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).status === 200) return { url, child };
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 30_000) throw new Error('no healthy /health within 30 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

async function timed(url: string, operation: 'validate' | 'compile', yaml: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/api/probe-builder/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ yaml, tenant: 'ost.kantonsspital' }),
  });
  const body = (await res.json()) as { valid?: boolean; ok?: boolean };
  if (res.status !== 200 || (body.valid ?? body.ok) !== true) throw new Error(`${operation} answered ${res.status} ${JSON.stringify(body)}`);
  return performance.now() - started;
}

async function series(url: string, operation: 'validate' | 'compile', yaml: string, runs: number, concurrency = 1): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < runs) {
      next++;
      times.push(await timed(url, operation, yaml));
    }
  }));
  return times;
}

function report(label: string, times: number[]): number {
  const p95 = percentile(times, 95);
  console.log(`${label.padEnd(44)} p50 ${fmt(percentile(times, 50)).padStart(7)} ms   p95 ${fmt(p95).padStart(7)} ms   (n=${times.length})`);
  return p95;
}

export async function run(): Promise<void> {
  for (const file of ['dist/src/main.js', 'dist/src/signals/checker-cli.js', 'dist/src/signals/compiler-cli.js']) {
    if (!fs.existsSync(path.join(root, file))) throw new Error('run `npm run build` first');
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-signals-'));
  try {
    generateDemo({ out: dataDir });
    const yaml = fs.readFileSync(path.join(dataDir, 'afs', 'signals', 'probe_unbilled_cases.yaml'), 'utf8');
    const warm = await startBuilt(dataDir, await freePort(), {});
    const p95: Record<string, number> = {};
    try {
      const firstValidate = await timed(warm.url, 'validate', yaml);
      const firstCompile = await timed(warm.url, 'compile', yaml);
      console.log(`first request (starts the worker): validate ${fmt(firstValidate)} ms, compile ${fmt(firstCompile)} ms`);
      p95['warm validate'] = report('validate, warm worker, sequential', await series(warm.url, 'validate', yaml, WARM_RUNS));
      p95['warm compile'] = report('compile, warm worker, sequential', await series(warm.url, 'compile', yaml, WARM_RUNS));
      report(`validate, warm worker, ${CONCURRENCY} in flight`, await series(warm.url, 'validate', yaml, WARM_RUNS, CONCURRENCY));
      report(`compile, warm worker, ${CONCURRENCY} in flight`, await series(warm.url, 'compile', yaml, WARM_RUNS, CONCURRENCY));
    } finally {
      await stop(warm.child);
    }
    const argv = (tool: string): string => JSON.stringify([process.execPath, path.join(root, `dist/src/signals/${tool}-cli.js`)]);
    const cold = await startBuilt(dataDir, await freePort(), { SIGNAL_CHECKER_CMD: argv('checker'), SIGNAL_COMPILER_CMD: argv('compiler') });
    try {
      p95['cold validate'] = report('validate, one process per request', await series(cold.url, 'validate', yaml, COLD_RUNS));
      p95['cold compile'] = report('compile, one process per request', await series(cold.url, 'compile', yaml, COLD_RUNS));
    } finally {
      await stop(cold.child);
    }
    const ratio = (p95['cold validate'] as number) / (p95['warm validate'] as number);
    console.log(`p95 cold/warm (validate): ${fmt(ratio)}x; target p95 < ${TARGET_P95_MS} ms with the warm worker: ${
      (p95['warm validate'] as number) < TARGET_P95_MS && (p95['warm compile'] as number) < TARGET_P95_MS ? 'met' : 'MISSED'}`);
    parseCosts();
    const hostile = await startBuilt(dataDir, await freePort(), {});
    try {
      await hostileRequests(hostile.url, dataDir);
    } finally {
      await stop(hostile.child);
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
