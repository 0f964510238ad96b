// `npm run bench -- signals`: hostile signal definitions against the built server on the demo data, for the
// isolation goal (docs/decisions/0010-definition-yaml-off-the-main-thread.md): texts the size limit refuses and texts
// within it that break another limit, through validate, compile and save, one after the other, then a list over
// costly stored files, while GET /health runs open loop. Goals: each hostile request answered within 200 ms (median),
// /health p99 ≤ 50 ms meanwhile. SIGNALS_SECONDS (10) sets the measured phase.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { BODY_LIMIT_BYTES } from '../src/http/body.js';
import { LIMITS } from '../src/signals/definition-rules.js';
import { manyKeys, manyKeysBody, nestedListsWithin, nodesOver } from '../test/helpers/hostile-yaml.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { startServer } from './server.js';
import { fmt, median } from './stats.js';

const HEALTH_RATE = 100;
const SECONDS = Number(process.env['SIGNALS_SECONDS'] ?? 10);
const GOAL_REQUEST_MS = 200;
const GOAL_HEALTH_P99_MS = 50;

/** The hostile texts: the two the size limit refuses, and three within it that break another limit. */
const hostileTexts = (): { label: string; yaml: string }[] => [
  { label: '35,000 keys, 137 KB', yaml: manyKeys(35_000, 'probe_hostile') },
  { label: 'keys, 1 MiB body', yaml: manyKeysBody(BODY_LIMIT_BYTES - 64, 'probe_hostile').yaml },
  { label: '3,000 keys, 16 KB', yaml: manyKeys(3000, 'probe_hostile') },
  { label: '4,500 numbers, 9 KB', yaml: nodesOver(4000, 'probe_hostile') },
  { label: 'lists nested 10 deep, 16 KB', yaml: nestedListsWithin(LIMITS.yamlChars, 'probe_hostile') },
];

async function post(url: string, operation: string, body: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/api/probe-builder/${operation}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status };
}

const healthLine = (label: string, r: OpenLoopResult): string =>
  `  /health ${label.padEnd(28)} p50 ${fmt(r.latency.p50).padStart(6)} ms  p99 ${fmt(r.latency.p99).padStart(6)} ms  max ${fmt(r.latency.max).padStart(7)} ms  (${r.requests} requests, ${r.ok} ok)`;

export async function run(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-signals-'));
  try {
    generateDemo({ out: dataDir });
    // the bench sends hundreds of requests a minute from one address: the per-caller limit (60) is switched off
    const server = await startServer({ DATA_DIR: dataDir, SIGNAL_TOOLS_PER_MINUTE: '0' });
    try {
      const url = server.url;
      const requests = hostileTexts().flatMap(({ label, yaml }) =>
        (['validate', 'compile', 'save'] as const).map((operation) => ({
          key: `${operation} ${label}`,
          operation,
          body: JSON.stringify(operation === 'save' ? { probe_id: 'probe_hostile', yaml } : { yaml }),
        })),
      );
      // every path warm: the tools, the parser's thread, each operation's validator, a refused body
      for (const { operation, body } of requests) await post(url, operation, body);

      const alone = await openLoop({ url, paths: ['/health'], rate: HEALTH_RATE, seconds: 5, warmupSeconds: 1 });
      const times = new Map<string, { ms: number[]; statuses: Set<number> }>();
      let running = true;
      const load = openLoop({ url, paths: ['/health'], rate: HEALTH_RATE, seconds: SECONDS, warmupSeconds: 1 }).finally(() => (running = false));
      while (running) {
        for (const { key, operation, body } of requests) {
          if (!running) break;
          const { ms, status } = await post(url, operation, body);
          const entry = times.get(key) ?? { ms: [], statuses: new Set<number>() };
          entry.ms.push(ms);
          entry.statuses.add(status);
          times.set(key, entry);
        }
      }
      const during = await load;
      console.log('hostile requests, one after the other, while /health runs open loop (median / max ms, statuses):');
      let worst = 0;
      for (const [key, { ms, statuses }] of times) {
        worst = Math.max(worst, median(ms));
        console.log(`  ${key.padEnd(44)} ${fmt(median(ms)).padStart(7)} / ${fmt(Math.max(...ms)).padStart(7)}  n=${ms.length}  ${[...statuses].join(',')}`);
      }
      console.log(healthLine('alone', alone));
      console.log(healthLine('during hostile requests', during));

      const signals = path.join(dataDir, 'afs', 'signals');
      fs.writeFileSync(path.join(signals, 'probe_costly_keys.yaml'), manyKeys(35_000, 'probe_costly_keys'));
      fs.writeFileSync(path.join(signals, 'probe_costly_nesting.yaml'), nestedListsWithin(LIMITS.yamlChars, 'probe_costly_nesting'));
      const lists: number[] = [];
      running = true;
      const listLoad = openLoop({ url, paths: ['/health'], rate: HEALTH_RATE, seconds: 5 }).finally(() => (running = false));
      while (running) {
        const started = performance.now();
        const res = await fetch(`${url}/api/probe-builder/list?tenant=kantonsspital`);
        await res.arrayBuffer();
        lists.push(performance.now() - started);
      }
      const listing = await listLoad;
      console.log(`list with two costly files: first ${fmt(lists[0]!)} ms (parses them), then median ${fmt(median(lists.slice(1)))} ms over ${lists.length - 1}`);
      console.log(healthLine('during lists', listing));
      const p99 = Math.max(during.latency.p99, listing.latency.p99);
      const met = worst < GOAL_REQUEST_MS && p99 <= GOAL_HEALTH_P99_MS && during.ok === during.requests && listing.ok === listing.requests;
      console.log(`goals: hostile requests < ${GOAL_REQUEST_MS} ms (worst median ${fmt(worst)} ms), /health p99 ≤ ${GOAL_HEALTH_P99_MS} ms meanwhile (${fmt(p99)} ms): ${met ? 'met' : 'MISSED'}`);
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
