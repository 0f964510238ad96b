// The 1,000,000-row CSV export with and without compression, through the built server: per coding (identity, gzip,
// br) the download timed by a client process of its own (wall time, bytes on the wire, bytes decoded, the server's
// CPU time meanwhile, which includes zlib's work on libuv's threads), then GET /health and a search on another
// tenant, each open loop, while clients repeat that export in that coding back to back (other clients' p50/p99).
// COMPRESSION_BENCH_ROWS (1,000,000), COMPRESSION_BENCH_SECONDS (5) and COMPRESSION_BENCH_RUNS (3) change the
// sizes. The latest figures go to docs/benchmarks.md (section `compression`); the levels are decision 13's.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { LEVELS } from '../src/http/compression.js';
import { sleep, type BenchServer } from './bench-server.js';
import { buildsToCompare, machine, startBuild } from './export-builds.js';
import { describeLatency } from './export-latency.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { writeBenchSection } from './report.js';
import { QUERIES, searchPath } from './search-queries.js';
import { fmt, median, procCpuMs } from './stats.js';

const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
};
const ROWS = positive('COMPRESSION_BENCH_ROWS', 1_000_000);
const SECONDS = positive('COMPRESSION_BENCH_SECONDS', 5);
const RUNS = positive('COMPRESSION_BENCH_RUNS', 3);
const RATE = 100;
/** Clients repeating the export (EXPORTS_PER_CALLER allows 2 exports per caller by default). */
const CLIENTS = 2;
const EXPORT_PATH = '/kantonsspital/dimensions/materials/export';
const CODINGS = ['identity', 'gzip', 'br'] as const;
type Coding = (typeof CODINGS)[number];

// The download client: reads the export as sent, decodes it (when coded) only to count the decoded bytes.
const DOWNLOAD_CLIENT = `
const http = require('node:http');
const zlib = require('node:zlib');
const [url, coding] = process.argv.slice(1);
const started = performance.now();
http.get(url, { headers: coding === 'identity' ? {} : { 'accept-encoding': coding } }, (res) => {
  if (res.statusCode !== 200) { console.error('export answered ' + res.statusCode); process.exit(1); }
  if ((res.headers['content-encoding'] || 'identity') !== coding) { console.error('sent as ' + res.headers['content-encoding']); process.exit(1); }
  let wire = 0, decoded = 0;
  res.on('data', (chunk) => (wire += chunk.length));
  const plain = coding === 'gzip' ? res.pipe(zlib.createGunzip()) : coding === 'br' ? res.pipe(zlib.createBrotliDecompress()) : res;
  plain.on('data', (chunk) => (decoded += chunk.length));
  plain.on('end', () => console.log(JSON.stringify({ ms: performance.now() - started, wire, decoded })));
}).on('error', (err) => { console.error(err.message); process.exit(1); });
`;

interface Download {
  ms: number;
  wire: number;
  decoded: number;
  cpuMs: number;
}

function download(server: BenchServer, coding: Coding): Promise<Download> {
  const cpuBefore = procCpuMs(server.pid);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', DOWNLOAD_CLIENT, server.url + EXPORT_PATH, coding], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`download client (${coding}) exited with ${String(code)}`));
      resolve({ ...(JSON.parse(out) as Omit<Download, 'cpuMs'>), cpuMs: procCpuMs(server.pid) - cpuBefore });
    });
  });
}

/** `clients` loops downloading the export in `coding`, each read to its end, until `done()`; the downloads made. */
async function repeatExport(url: string, coding: Coding, done: () => boolean): Promise<{ count: number; failed: number }> {
  let count = 0;
  let failed = 0;
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      http
        .get(url + EXPORT_PATH, { headers: coding === 'identity' ? {} : { 'accept-encoding': coding } }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) count += 1;
            else failed += 1;
            resolve();
          });
          res.on('error', () => ((failed += 1), resolve()));
        })
        .on('error', () => ((failed += 1), resolve()));
    });
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (!done()) await once();
    }),
  );
  return { count, failed };
}

interface CodingResult {
  coding: Coding;
  downloads: Download[];
  health: OpenLoopResult;
  search: OpenLoopResult;
  exports: { count: number; failed: number };
}

async function searchesReady(url: string): Promise<void> {
  for (const deadline = Date.now() + 300_000; ; await sleep(200)) {
    const res = await fetch(url + searchPath('west.hopital-cantonal', 'kosten'));
    await res.arrayBuffer();
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error('search not ready within 300 s');
  }
}

export async function run(): Promise<void> {
  const [build] = buildsToCompare();
  const loadAtStart = os.loadavg().map((l) => l.toFixed(1)).join(', ');
  console.log(`machine: ${machine()}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-compression-'));
  let server: BenchServer | null = null;
  try {
    generateDemo({ out: dataDir, tenants: 3, rows: ROWS });
    server = await startBuild(build!, { DATA_DIR: dataDir });
    await searchesReady(server.url);
    const searchPaths = QUERIES.map((q) => searchPath('west.hopital-cantonal', q));
    const alone = await Promise.all([
      openLoop({ url: server.url, paths: ['/health'], rate: RATE, seconds: SECONDS, warmupSeconds: 1 }),
      openLoop({ url: server.url, paths: searchPaths, rate: RATE, seconds: SECONDS, warmupSeconds: 1 }),
    ]);
    const results: CodingResult[] = [];
    for (const coding of CODINGS) {
      const downloads: Download[] = [];
      for (let i = 0; i < RUNS; i++) downloads.push(await download(server, coding));
      let over = false;
      const loops = Promise.all([
        openLoop({ url: server.url, paths: ['/health'], rate: RATE, seconds: SECONDS, warmupSeconds: 1 }),
        openLoop({ url: server.url, paths: searchPaths, rate: RATE, seconds: SECONDS, warmupSeconds: 1 }),
      ]).finally(() => (over = true));
      const exports = await repeatExport(server.url, coding, () => over);
      const [health, search] = await loops;
      results.push({ coding, downloads, health, search, exports });
      console.log(`${coding}: ${downloads.map((d) => `${fmt(d.ms, 0)} ms ${fmt(d.wire / 1e6)} MB cpu ${fmt(d.cpuMs, 0)} ms`).join('; ')}; /health ${describeLatency(health)}, search ${describeLatency(search)}`);
      await sleep(2000);
    }
    const identityBytes = median(results[0]!.downloads.map((d) => d.decoded));
    for (const r of results) {
      if (r.downloads.some((d) => d.decoded !== identityBytes)) throw new Error(`${r.coding}: decoded bytes differ from the identity export`);
    }
    const table = [
      '| coding | level | time (median) | bytes on the wire | ratio | server CPU | GET /health p50 / p99 | search p50 / p99 | exports done meanwhile |',
      '|---|---|---|---|---|---|---|---|---|',
      `| nothing else running | - | - | - | - | - | ${describeLatency(alone[0])} | ${describeLatency(alone[1])} | - |`,
      ...results.map((r) => {
        const wire = median(r.downloads.map((d) => d.wire));
        const level = r.coding === 'identity' ? '-' : r.coding === 'gzip' ? `gzip ${LEVELS.stream.gzip}` : `brotli ${LEVELS.stream.br}`;
        const failed = r.exports.failed > 0 ? `, ${r.exports.failed} failed` : '';
        return `| ${r.coding} | ${level} | ${fmt(median(r.downloads.map((d) => d.ms)), 0)} ms | ${fmt(wire / 1e6, 2)} MB | ${fmt(identityBytes / wire, 1)}x | ${fmt(median(r.downloads.map((d) => d.cpuMs)), 0)} ms | ${describeLatency(r.health)} | ${describeLatency(r.search)} | ${r.exports.count}${failed} |`;
      }),
    ];
    const markdown = `## Compressed exports: time, bytes, CPU, other clients' latency

The built server (started as \`npm start\` does) over 3 demo tenants of ${ROWS.toLocaleString('en-US')} materials each.
Machine load average at the start: ${loadAtStart}.

The \`materials\` export (${ROWS.toLocaleString('en-US')} rows, ${fmt(identityBytes / 1e6, 1)} MB of CSV), median of ${RUNS} downloads by a
client process of its own, per \`Accept-Encoding\` (none, \`gzip\`, \`br\`; levels of decision 13); the server's
CPU time (user + system, zlib's threads included) over each download. Then \`GET /health\` and a search on
another tenant, each open loop at ${RATE} req/s for ${SECONDS} s (latency from the moment a request was due), while ${CLIENTS}
clients repeat that export in that coding; the first row has nothing else running. Every coded export decoded
to the identity export's byte count.

${table.join('\n')}`;
    console.log(`\n${markdown}`);
    writeBenchSection('compression', markdown);
  } finally {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
