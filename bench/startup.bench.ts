// Time from process start to the first healthy GET /health on the demo data (warm start: data exists).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { fmt, median } from './stats.js';
import { serverArgs } from './server-command.js';

const RUNS = 7;

async function timeToHealthy(dataDir: string, port: number): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, serverArgs(), {
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'error' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        if (res.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 5));
      if (performance.now() - started > 30_000) throw new Error('no healthy /health within 30 s');
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function run(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-start-'));
  try {
    generateDemo({ out: dataDir });
    const times: number[] = [];
    for (let i = 0; i < RUNS; i += 1) times.push(await timeToHealthy(dataDir, 18400 + i));
    console.log(`start to healthy /health (built server, demo data, warm): median ${fmt(median(times))} ms over ${RUNS} runs; min ${fmt(Math.min(...times))} ms, max ${fmt(Math.max(...times))} ms`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
