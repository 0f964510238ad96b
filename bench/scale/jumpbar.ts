// `GET /api/jumpbar?mode=tenants` (answered from memory) of the built server, with its defaults (response validation
// on, LOG_LEVEL=info to a file), against a bare Koa app sending the same bytes and headers (bench/bare-koa-server.ts),
// both under the same closed-loop autocannon load, one after the other, alternating twice: server, bare, server,
// bare. Ratio = median server req/s / median bare req/s: the share of a bare Koa response the real stack achieves.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../../src/demo/generate.js';
import { namesSettledOrQuiet, sidecarOf, startBenchServer, stopChild, waitFor } from '../bench-server.js';
import { closedLoop, describeClosedLoop, type ClosedLoopResult } from '../closed-loop.js';
import { serverArgs } from '../server-command.js';
import type { ScaleSettings } from './settings.js';
import { middle, num, printRow, rowOf, verdictOf, type Row } from './table.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const PATH = '/api/jumpbar?mode=tenants';
/** Headers that belong to the connection or the moment, not to the answer. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

interface Answer {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

function fetchAnswer(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            if (!PER_CONNECTION.has(res.rawHeaders[i]!.toLowerCase())) headers.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
          }
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      })
      .on('error', reject);
  });
}

/** Header lines of an answer, lower-cased names, X-Request-Id left out (the server makes a new one per request). */
const headerLines = (a: Answer): string =>
  a.headers
    .filter(([name]) => name.toLowerCase() !== 'x-request-id')
    .map(([name, value]) => `${name.toLowerCase()}: ${value}`)
    .sort()
    .join('\n');

function startBare(answerFile: string): Promise<{ child: ChildProcess; url: string }> {
  const nodeFlags = serverArgs().slice(0, -1); // the same V8 flags as the server
  const child = spawn(process.execPath, [...nodeFlags, '--import', import.meta.resolve('tsx'), path.join(root, 'bench', 'bare-koa-server.ts'), answerFile], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve({ child, url: `http://127.0.0.1:${text.split('\n')[0]!.trim()}` });
    });
    child.once('exit', () => reject(new Error('the bare Koa server exited')));
  });
}

export async function measureJumpbar(settings: ScaleSettings): Promise<Row> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-scale-jumpbar-'));
  let bare: ChildProcess | null = null;
  const demo = generateDemo({ out: dataDir });
  const server = await startBenchServer({ DATA_DIR: dataDir });
  try {
    // the background index builds and names loads finish first, so that nothing competes with the load
    await waitFor('search indexes built', () => demo.tenants.every((t) => sidecarOf(t.file) !== undefined), 120_000);
    await namesSettledOrQuiet(server, demo.tenants.length, 5000);
    const answer = await fetchAnswer(server.url + PATH);
    if (answer.status !== 200) throw new Error(`${PATH} answered ${answer.status}`);
    const answerFile = path.join(dataDir, 'tenants-answer.json');
    fs.writeFileSync(answerFile, JSON.stringify({ status: answer.status, headers: answer.headers, body: answer.body.toString('base64') }));
    const started = await startBare(answerFile);
    bare = started.child;
    const bareAnswer = await fetchAnswer(started.url + PATH);
    const same = bareAnswer.body.equals(answer.body) && headerLines(bareAnswer) === headerLines(answer);
    console.log(
      `${PATH}: ${answer.body.length} bytes, headers ${answer.headers.map(([n]) => n).join(', ')}; bare Koa sends the same bytes and headers: ${same ? 'yes' : 'NO'}`,
    );
    if (!same) throw new Error(`the bare Koa answer differs:\n${headerLines(bareAnswer)}\nvs\n${headerLines(answer)}`);

    const options = { seconds: settings.seconds, connections: settings.connections };
    const targets = { server: { url: server.url, pid: server.pid }, bare: { url: started.url, pid: started.child.pid! } };
    for (const target of Object.values(targets)) await closedLoop(target, [PATH], { ...options, seconds: settings.jumpbarWarmupSeconds }); // JIT warm-up: steady state
    const runs: Record<'server' | 'bare', ClosedLoopResult[]> = { server: [], bare: [] };
    for (let round = 1; round <= 2; round++) {
      for (const name of ['server', 'bare'] as const) {
        const result = await closedLoop(targets[name], [PATH], options);
        runs[name].push(result);
        console.log(`round ${round}, ${name === 'server' ? 'server (validation on, LOG_LEVEL=info)' : 'bare Koa'}: ${describeClosedLoop(result)}`);
      }
    }
    const failed = [...runs.server, ...runs.bare].some((r) => r.errors > 0 || [...r.statuses.keys()].some((s) => s !== 200));
    const serverRps = middle(runs.server.map((r) => r.rps));
    const bareRps = middle(runs.bare.map((r) => r.rps));
    const ratio = serverRps / bareRps;
    const row = rowOf(
      'jumpbar',
      `${ratio.toFixed(2)} (server ${num(serverRps)} req/s / bare Koa ${num(bareRps)} req/s; server CPU ${middle(runs.server.map((r) => r.cpuMsPerRequest)).toFixed(3)} vs ${middle(runs.bare.map((r) => r.cpuMsPerRequest)).toFixed(3)} ms per request)`,
      failed ? 'MISSED' : verdictOf(ratio >= 0.35),
      failed ? 'some requests failed' : undefined,
    );
    printRow(row);
    return row;
  } finally {
    if (bare !== null) await stopChild(bare);
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
