// Hostile signal definitions (part of signals.bench.ts): what the `yaml` package costs per shape of text, with
// and without its duplicate-key check, in this process; then, against the built server, the hostile texts
// through validate, compile and save, and a list over costly stored files, while GET /health runs open loop
// (docs/decisions/0010-definition-yaml-off-the-main-thread.md). Targets: each hostile request within 200 ms,
// /health under 50 ms throughout.
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { LIMITS } from '../src/signals/definition-rules.js';
import { parseYamlSafely } from '../src/signals/safe-yaml.js';
import { manyKeys, manyKeysBody, nestedListsWithin, nodesOver } from '../test/helpers/hostile-yaml.js';
import { EXAMPLE_SIGNAL } from '../test/helpers/signals.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { fmt, median } from './stats.js';

const HEALTH_RATE = 100;
const TARGET_REQUEST_MS = 200;
const TARGET_HEALTH_MS = 50;
const BODY_LIMIT = 1024 * 1024;

/** The hostile texts: the two the size limit refuses, and three within it that break another limit. */
function hostileTexts(): { label: string; yaml: string }[] {
  return [
    { label: '35,000 keys, 137 KB', yaml: manyKeys(35_000, 'probe_hostile') },
    { label: 'keys, 1 MiB body', yaml: manyKeysBody(BODY_LIMIT - 64, 'probe_hostile').yaml },
    { label: '3,000 keys, 16 KB', yaml: manyKeys(3000, 'probe_hostile') },
    { label: '4,500 numbers, 9 KB', yaml: nodesOver(4000, 'probe_hostile') },
    { label: 'lists nested 10 deep, 16 KB', yaml: nestedListsWithin(LIMITS.yamlChars, 'probe_hostile') },
  ];
}

function timeRuns(runs: number, work: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Parse time per shape in this process: the package with and without uniqueKeys, and parseYamlSafely (which refuses past the limits). */
export function parseCosts(): void {
  console.log('parse in this process (median ms): uniqueKeys true | uniqueKeys false | parseYamlSafely (its answer)');
  const shapes = [
    ...hostileTexts().filter((text) => !text.label.includes('MiB')),
    { label: '6,000 keys with values, 69 KB', yaml: `contract: {${Array.from({ length: 6000 }, (_, i) => `key${i}: ${i}`).join(', ')}}\n` },
    { label: '[{},{},…], 18 KB', yaml: `contract: [${Array(6000).fill('{}').join(',')}]\n` },
    { label: 'the example signal, 0.7 KB', yaml: EXAMPLE_SIGNAL },
  ];
  for (const { label, yaml } of shapes) {
    // warm the parser on this shape first; the slow quadratic case runs twice only
    const runs = yaml.length > 100_000 ? 2 : 7;
    parseDocument(yaml, { uniqueKeys: false });
    const unique = timeRuns(runs, () => parseDocument(yaml, { uniqueKeys: true, strict: true }));
    const plain = timeRuns(runs, () => parseDocument(yaml, { uniqueKeys: false, strict: true }));
    let answer = '';
    const safe = timeRuns(runs, () => {
      const parsed = parseYamlSafely(yaml);
      answer = parsed.errors[0]?.message ?? 'accepted';
    });
    console.log(`  ${label.padEnd(32)} ${fmt(unique).padStart(8)} | ${fmt(plain).padStart(7)} | ${fmt(safe).padStart(7)} (${answer.slice(0, 50)})`);
  }
}

async function post(url: string, operation: string, body: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/api/probe-builder/${operation}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status };
}

function healthLine(label: string, result: OpenLoopResult): string {
  const { latency } = result;
  return `  /health ${label.padEnd(28)} p50 ${fmt(latency.p50).padStart(6)} ms  p99 ${fmt(latency.p99).padStart(6)} ms  max ${fmt(latency.max).padStart(7)} ms  (${result.requests} requests, ${result.ok} ok)`;
}

/** Hostile requests against a running built server over `dataDir`, /health open loop meanwhile. */
export async function hostileRequests(url: string, dataDir: string): Promise<void> {
  const texts = hostileTexts();
  const requests = texts.flatMap(({ label, yaml }) =>
    (['validate', 'compile', 'save'] as const).map((operation) => ({
      key: `${operation} ${label}`,
      operation,
      body: JSON.stringify(operation === 'save' ? { probe_id: 'probe_hostile', yaml } : { yaml }),
    })),
  );
  // every path warm: the tools, the parser's thread, each operation's validator, a refused body
  for (const { operation, body } of requests) await post(url, operation, body);

  const baseline = await openLoop({ url, paths: ['/health'], rate: HEALTH_RATE, seconds: 5, warmupSeconds: 1 });
  const times = new Map<string, { ms: number[]; statuses: Set<number> }>();
  let running = true;
  const load = openLoop({ url, paths: ['/health'], rate: HEALTH_RATE, seconds: 10, warmupSeconds: 1 }).finally(() => (running = false));
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
  console.log(healthLine('alone', baseline));
  console.log(healthLine('during hostile requests', during));
  console.log(`  /health p50 during / alone: ${fmt(during.latency.p50 / baseline.latency.p50, 2)}x`);

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
  const met = worst < TARGET_REQUEST_MS && during.latency.max < TARGET_HEALTH_MS && listing.latency.max < TARGET_HEALTH_MS;
  console.log(`targets: hostile requests < ${TARGET_REQUEST_MS} ms (worst median ${fmt(worst)} ms), /health < ${TARGET_HEALTH_MS} ms throughout: ${met ? 'met' : 'MISSED'}`);
}
