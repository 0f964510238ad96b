// JSON bodies at the limits: other clients' p99 (GET /health and a tenant list, open loop) while clients keep
// sending bodies at the size limit (1 MiB) and the shape limits (MAX_JSON_DEPTH, MAX_JSON_VALUES): nested
// arrays past the depth limit, 1 MiB of items nested to it and a flat array of 1 MiB of numbers (all refused from
// the text, before parsing), and the costliest bodies that are parsed: as many values as allowed, nested to the
// limit, with long strings filling 1 MiB (then refused by the schema), and one 1 MiB string (a definition that the
// signal checker is then given). Target: p99 under 50 ms during them.
//
// `npm run bench -- json-bodies`; JSON_BODIES_SECONDS (default 15) sets the measured phase, JSON_BODIES_SENDERS
// (default 4) the clients sending bodies at once. JSON_BODIES_BASELINE_DIR names another checkout whose build runs
// in turn with this one (JSON_BODIES_ROUNDS rounds of both, default 2), for a side-by-side figure on a busy machine.
// The latest figures go to docs/benchmarks.md (section `json-bodies`).
import os from 'node:os';
import path from 'node:path';
import { BODY_LIMIT_BYTES } from '../src/http/body.js';
import { MAX_JSON_VALUES, MAX_JSON_DEPTH } from '../src/http/body.js';
import { describeOpenLoop, openLoop, type OpenLoopResult } from './open-loop.js';
import { writeBenchSection } from './report.js';
import { startServer, thisBuild } from './server.js';
import { fmt, median } from './stats.js';

const TARGET_P99_MS = 50;
const RATE = 200;
const SECONDS = Number(process.env.JSON_BODIES_SECONDS ?? 15);
const SENDERS = Number(process.env.JSON_BODIES_SENDERS ?? 4);
const OTHERS = ['/health', '/api/jumpbar?mode=tenants'];
const BASELINE = process.env.JSON_BODIES_BASELINE_DIR;
const ROUNDS = Number(process.env.JSON_BODIES_ROUNDS ?? (BASELINE === undefined ? 1 : 2));

/** `count` copies of `item`, comma-separated, as many as fit in `bytes` inside `open` … `close`. */
function filled(open: string, item: string, close: string, bytes: number): string {
  const count = Math.floor((bytes - open.length - close.length + 1) / (item.length + 1));
  return open + Array.from({ length: count }, () => item).join(',') + close;
}

/** The bodies sent, each as large as the body limit allows, and where: the costliest shapes each limit leaves. */
function bodies(): { label: string; path: string; text: string }[] {
  const half = BODY_LIMIT_BYTES / 2;
  // {"yaml":"x","pad":[ … ]}: the body 1, pad 2, each item nests the rest down to MAX_JSON_DEPTH (30 arrays, a 0)
  const deepItem = '['.repeat(MAX_JSON_DEPTH - 2) + '0' + ']'.repeat(MAX_JSON_DEPTH - 2);
  const allowed = MAX_JSON_VALUES - 3;
  const deepItems = Array.from({ length: Math.floor(allowed / (MAX_JSON_DEPTH - 1)) }, () => deepItem);
  // the values left after the deep items, as long strings filling 1 MiB
  const left = allowed - deepItems.length * (MAX_JSON_DEPTH - 1);
  const prefix = `{"yaml":"x","pad":[${deepItems.join(',')}`;
  const stringLength = Math.floor((BODY_LIMIT_BYTES - prefix.length - 2) / Math.max(left, 1)) - 3;
  return [
    { label: `nested arrays, ${half} deep`, path: '/api/probe-builder/validate', text: '['.repeat(half) + ']'.repeat(half) },
    { label: `${MAX_JSON_DEPTH} levels deep, 1 MiB of them`, path: '/api/probe-builder/validate', text: filled('{"yaml":"x","pad":[', deepItem, ']}', BODY_LIMIT_BYTES) },
    { label: 'flat array of numbers, 1 MiB', path: '/api/views', text: filled('[', '0', ']', BODY_LIMIT_BYTES) },
    {
      label: `${MAX_JSON_VALUES} values, ${MAX_JSON_DEPTH} deep, 1 MiB`,
      path: '/api/probe-builder/validate',
      text: `${prefix}${Array.from({ length: left }, () => `,"${'a'.repeat(stringLength)}"`).join('')}]}`,
    },
    { label: 'one string of 1 MiB', path: '/api/probe-builder/validate', text: JSON.stringify({ yaml: 'x'.repeat(BODY_LIMIT_BYTES - 20) }) },
  ];
}

/** What one build measured: other clients alone and during the bodies, and each body's answer times. */
interface Measured {
  alone: OpenLoopResult;
  during: OpenLoopResult;
  times: Map<string, { ms: number[]; statuses: Set<number> }>;
}

async function measure(root: string): Promise<Measured> {
  const server = await startServer({ LOG_LEVEL: 'error', SIGNAL_TOOLS_PER_MINUTE: '0' }, { build: { ...thisBuild(), root } });
  try {
    const sent = bodies();
    for (const { label, text } of sent) if (Buffer.byteLength(text) > BODY_LIMIT_BYTES) throw new Error(`${label}: over the body limit`);
    const post = async ({ path, text }: { path: string; text: string }): Promise<{ ms: number; status: number }> => {
      const started = performance.now();
      const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      await res.arrayBuffer();
      return { ms: performance.now() - started, status: res.status };
    };
    for (const body of sent) await post(body); // each path warm: the body reader, each operation's validator

    const alone = await openLoop({ url: server.url, paths: OTHERS, rate: RATE, seconds: 5, warmupSeconds: 1 });
    const times: Measured['times'] = new Map();
    let running = true;
    const load = openLoop({ url: server.url, paths: OTHERS, rate: RATE, seconds: SECONDS, warmupSeconds: 1 }).finally(() => (running = false));
    await Promise.all(
      Array.from({ length: SENDERS }, async (_, sender) => {
        for (let i = sender; running; i += 1) {
          const body = sent[i % sent.length]!;
          const { ms, status } = await post(body);
          const entry = times.get(body.label) ?? { ms: [], statuses: new Set<number>() };
          entry.ms.push(ms);
          entry.statuses.add(status);
          times.set(body.label, entry);
        }
      }),
    );
    return { alone, during: await load, times };
  } finally {
    await server.stop();
  }
}

const met = (r: Measured): boolean => r.during.latency.p99 < TARGET_P99_MS && r.during.non2xx === 0;

export async function run(): Promise<void> {
  const here = path.resolve(import.meta.dirname, '..');
  const builds = [{ label: 'this build', root: here }, ...(BASELINE === undefined ? [] : [{ label: path.basename(BASELINE), root: path.resolve(BASELINE) }])];
  const loadAtStart = os.loadavg().map((v) => fmt(v)).join(', ');
  const rows: string[] = [];
  const p99s = new Map<string, number[]>();
  let last: Measured | undefined;
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const build of builds) {
      const r = await measure(build.root);
      if (build.root === here) last = r;
      p99s.set(build.label, [...(p99s.get(build.label) ?? []), r.during.latency.p99]);
      const answered = [...r.times.values()].reduce((sum, { ms }) => sum + ms.length, 0);
      console.log(`${build.label}, round ${round}:`);
      console.log(`  other clients alone:          ${describeOpenLoop(r.alone)}`);
      console.log(`  other clients during bodies:  ${describeOpenLoop(r.during)}`);
      console.log(`  bodies answered: ${answered}; target: other clients' p99 < ${TARGET_P99_MS} ms while bodies at the limits arrive: ${met(r) ? 'met' : 'MISSED'}`);
      rows.push(
        `| ${build.label} | ${round} | ${fmt(r.alone.latency.p50)} / ${fmt(r.alone.latency.p99)} | ${fmt(r.during.latency.p50)} / ${fmt(r.during.latency.p99)} / ${fmt(r.during.latency.max)} | ${r.during.non2xx + r.during.networkErrors + r.during.timedOut} | ${answered} | ${met(r) ? 'met' : 'missed'} |`,
      );
    }
  }
  const bodyRows = [...last!.times].map(([label, { ms, statuses }]) => `| ${label} | ${fmt(median(ms))} / ${fmt(Math.max(...ms))} | ${ms.length} | ${[...statuses].join(', ')} |`);
  const ours = p99s.get('this build')!;
  const ratios = BASELINE === undefined ? [] : p99s.get(builds[1]!.label)!.map((p99, round) => fmt(p99 / ours[round]!, 2));
  const ratio = BASELINE === undefined ? '' : `\np99 during the bodies, ${builds[1]!.label} / this build, round by round: ${ratios.join(', ')}.\n`;
  const markdown = `## JSON bodies at the limits: other clients' latency

The built server (started as \`npm start\` does). \`GET /health\` and \`GET /api/jumpbar?mode=tenants\` open loop at ${RATE}
req/s (latency from the moment a request was due): alone for 5 s, then for ${SECONDS} s while ${SENDERS} clients keep posting
${BODY_LIMIT_BYTES}-byte bodies at the limits of [errors.md](errors.md) (nesting ${MAX_JSON_DEPTH}, ${MAX_JSON_VALUES} values), one after the
other. Goal: other clients' p99 < ${TARGET_P99_MS} ms during the bodies. Machine load average at the start: ${loadAtStart}.

| build | round | alone p50 / p99 (ms) | during bodies p50 / p99 / max (ms) | errors | bodies answered | goal |
|---|---|---|---|---|---|---|
${rows.join('\n')}
${ratio}
Each body's answer time in the last round of this build, as its sender saw it (median / max ms):

| body | median / max (ms) | answered | statuses |
|---|---|---|---|
${bodyRows.join('\n')}`;
  console.log(`\n${markdown}`);
  writeBenchSection('json-bodies', markdown);
}
