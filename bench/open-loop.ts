// Open-loop HTTP load: GET requests leave on a fixed schedule (request i is due at start + i / rate) whatever the
// server does, and each latency counts from the moment its request was DUE, not from when it left: a server that
// stalls for 300 ms is charged 300 ms for every request due during the stall, as a user would be (a closed loop, or
// a generator that waits for a free connection, would send fewer requests during the stall and hide it).
// The schedule runs in a child process of its own, so that nothing the bench does can delay it, over keep-alive
// connections with a socket limit far above the concurrency a run reaches: a request never waits for a free socket.
// How late each request left (send lag: socket assigned - due) is reported too, so that a saturated client shows.
//
// Self-check (not part of npm test): `npx tsx bench/open-loop.ts` runs it against a local server that answers after
// a fixed delay (p50 must be that delay), and one that stalls its event loop once (the stall must show in the tail).
import { fork } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CHILD_FLAG = '--open-loop-child';
const thisFile = fileURLToPath(import.meta.url);

/** One open-loop run. */
export interface OpenLoopOptions {
  /** Base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  /** Request paths, used in turn (cycled), starting at `startAt`. */
  paths: readonly string[];
  /** Offered load in requests per second. */
  rate: number;
  /** Length of the measured phase in seconds. */
  seconds: number;
  /** Seconds of the same schedule before the measured phase, not recorded (default 0). */
  warmupSeconds?: number;
  /** Index into `paths` of the first request (default 0): lets consecutive runs continue through one pool. */
  startAt?: number;
  /** Socket limit of the keep-alive agent (default 8192: far above what a run reaches). */
  maxSockets?: number;
  /** How long to wait for outstanding responses after the last request left (default 15,000 ms); later ones count as timed out. */
  drainMs?: number;
  headers?: Record<string, string>;
}

/** Latency percentiles in ms (nearest rank). */
export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/** What an open-loop run measured (the measured phase only). */
export interface OpenLoopResult {
  rate: number;
  seconds: number;
  /** Requests of the measured phase (all of them left: the schedule never skips one). */
  requests: number;
  /** Responses with a 2xx status. */
  ok: number;
  /** Responses with another status. */
  non2xx: number;
  /** Requests that failed on the network (reset, refused). */
  networkErrors: number;
  /** Requests still unanswered `drainMs` after the last one left: counted with the time waited so far. */
  timedOut: number;
  /** Response counts by status ('net' for network errors, 'timeout'). */
  statuses: Record<string, number>;
  /** Completion - due, over every request that was answered or timed out. */
  latency: Percentiles;
  /** Socket assigned - due: how late requests left (client or event-loop saturation). */
  sendLag: Percentiles;
  /** Completion - socket assigned: what a generator timing from the send would report (for comparison only). */
  fromSend: Percentiles;
  /** Answered requests per second over the measured phase (first due to last answer). */
  achievedRate: number;
  /** Distinct sockets the run used. */
  sockets: number;
  /** CPU the generator used, in % of one core, over the whole run. */
  clientCpuPercent: number;
  /** Index into `paths` after the last request of this run (to continue in the next one). */
  nextPath: number;
}

/** Runs one open-loop load in a child process and resolves with its figures. */
export function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  return new Promise((resolve, reject) => {
    const child = fork(thisFile, [CHILD_FLAG], {
      execArgv: thisFile.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: OpenLoopResult | null = null;
    child.on('message', (message: { result?: OpenLoopResult; error?: string }) => {
      if (message.error !== undefined) reject(new Error(`open-loop generator: ${message.error}`));
      else if (message.result !== undefined) result = message.result;
    });
    child.once('error', reject);
    child.once('exit', (code) => (result !== null ? resolve(result) : reject(new Error(`open-loop generator exited with ${String(code)} and no result`))));
    child.send({ options });
  });
}

/** Nearest-rank percentiles of `values` (sorted in place). */
export function percentiles(values: Float64Array): Percentiles {
  if (values.length === 0) return { p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, p999: Number.NaN, max: Number.NaN, mean: Number.NaN };
  values.sort();
  const at = (p: number): number => values[Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1))]!;
  let sum = 0;
  for (const value of values) sum += value;
  return { p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: values[values.length - 1]!, mean: sum / values.length };
}

const PENDING = 0;
const NETWORK_ERROR = -1;
const TIMED_OUT = -2;

/** The generator itself (in the child process). */
function runSchedule(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { rate, seconds, paths } = options;
  if (!(rate > 0) || !(seconds > 0) || paths.length === 0) throw new Error('rate and seconds must be positive and paths non-empty');
  const base = new URL(options.url);
  const maxSockets = options.maxSockets ?? 8192;
  const agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' });
  const warm = Math.round(rate * (options.warmupSeconds ?? 0));
  const total = warm + Math.round(rate * seconds);
  const startAt = options.startAt ?? 0;
  const interval = 1000 / rate;
  const due = new Float64Array(total);
  const sentAt = new Float64Array(total).fill(Number.NaN);
  const doneAt = new Float64Array(total).fill(Number.NaN);
  const status = new Int16Array(total); // PENDING, an HTTP status, NETWORK_ERROR or TIMED_OUT
  const sockets = new Set<object>();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const start = wallBefore + 50;
  let next = 0;
  let outstanding = 0;

  return new Promise((resolve) => {
    let finished = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(drainTimer);
      const now = performance.now();
      for (let i = 0; i < total; i++) {
        if (status[i] === PENDING) {
          status[i] = TIMED_OUT;
          doneAt[i] = now;
        }
      }
      agent.destroy();
      const cpu = process.cpuUsage(cpuBefore);
      resolve(summarise(now - wallBefore, (cpu.user + cpu.system) / 1000));
    };
    const settled = (i: number, code: number): void => {
      if (status[i] !== PENDING) return;
      status[i] = code;
      doneAt[i] = performance.now();
      outstanding -= 1;
      if (outstanding === 0 && next >= total) finish();
    };
    const send = (i: number): void => {
      outstanding += 1;
      const request = http.request(
        { agent, protocol: base.protocol, hostname: base.hostname, port: base.port, method: 'GET', path: paths[(startAt + i) % paths.length], headers: options.headers },
        (response) => {
          response.on('end', () => settled(i, response.statusCode ?? 0));
          response.on('error', () => settled(i, NETWORK_ERROR));
          response.resume();
        },
      );
      request.on('socket', (socket) => {
        sentAt[i] = performance.now();
        sockets.add(socket);
      });
      request.on('error', () => settled(i, NETWORK_ERROR));
      request.end();
    };
    const tick = (): void => {
      const now = performance.now();
      while (next < total && start + next * interval <= now) {
        due[next] = start + next * interval;
        send(next);
        next += 1;
      }
      if (next < total) {
        setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
      } else if (outstanding === 0) {
        finish();
      } else {
        drainTimer = setTimeout(finish, options.drainMs ?? 15_000);
      }
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });

  function summarise(wallMs: number, cpuMs: number): OpenLoopResult {
    const latencies: number[] = [];
    const lags: number[] = [];
    const fromSend: number[] = [];
    const statuses: Record<string, number> = {};
    let ok = 0;
    let non2xx = 0;
    let networkErrors = 0;
    let timedOut = 0;
    let lastAnswer = due[warm] ?? 0;
    for (let i = warm; i < total; i++) {
      const code = status[i]!;
      const key = code === NETWORK_ERROR ? 'net' : code === TIMED_OUT ? 'timeout' : String(code);
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (!Number.isNaN(sentAt[i]!)) lags.push(sentAt[i]! - due[i]!);
      if (code === NETWORK_ERROR) {
        networkErrors += 1;
        continue;
      }
      latencies.push(doneAt[i]! - due[i]!);
      if (!Number.isNaN(sentAt[i]!)) fromSend.push(doneAt[i]! - sentAt[i]!);
      if (code === TIMED_OUT) timedOut += 1;
      else {
        lastAnswer = Math.max(lastAnswer, doneAt[i]!);
        if (code >= 200 && code < 300) ok += 1;
        else non2xx += 1;
      }
    }
    const answered = ok + non2xx;
    const span = lastAnswer - (due[warm] ?? 0);
    return {
      rate,
      seconds,
      requests: total - warm,
      ok,
      non2xx,
      networkErrors,
      timedOut,
      statuses,
      latency: percentiles(Float64Array.from(latencies)),
      sendLag: percentiles(Float64Array.from(lags)),
      fromSend: percentiles(Float64Array.from(fromSend)),
      achievedRate: span > 0 ? (answered / span) * 1000 : Number.NaN,
      sockets: sockets.size,
      clientCpuPercent: (cpuMs / wallMs) * 100,
      nextPath: (startAt + total) % paths.length,
    };
  }
}

/** One line: percentiles, achieved rate, errors, send lag. */
export function describeOpenLoop(r: OpenLoopResult): string {
  const f = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(2));
  const errors = r.non2xx + r.networkErrors + r.timedOut;
  return (
    `offered ${r.rate} req/s for ${r.seconds} s: p50 ${f(r.latency.p50)} / p90 ${f(r.latency.p90)} / p99 ${f(r.latency.p99)} / p99.9 ${f(r.latency.p999)} / max ${f(r.latency.max)} ms; ` +
    `achieved ${r.achievedRate.toFixed(0)} req/s; errors ${errors} (non-2xx ${r.non2xx}, network ${r.networkErrors}, timed out ${r.timedOut}); ` +
    `send lag p50 ${f(r.sendLag.p50)} / p99 ${f(r.sendLag.p99)} / max ${f(r.sendLag.max)} ms; ${r.sockets} sockets; client CPU ${r.clientCpuPercent.toFixed(0)}% of a core`
  );
}

if (process.argv[2] === CHILD_FLAG) {
  process.once('message', (message: { options: OpenLoopOptions }) => {
    runSchedule(message.options).then(
      (result) => process.send!({ result }, () => process.exit(0)),
      (err: unknown) => process.send!({ error: err instanceof Error ? err.message : String(err) }, () => process.exit(1)),
    );
  });
} else if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === thisFile) {
  await selfCheck();
}

/** Checks the generator against servers whose answer times are known. */
async function selfCheck(): Promise<void> {
  let stallAt = Number.POSITIVE_INFINITY;
  let stalled = false;
  const start = (delayMs: number): Promise<{ url: string; close: () => Promise<void> }> =>
    new Promise((resolve) => {
      const server = http.createServer((_req, res) => {
        if (!stalled && performance.now() >= stallAt) {
          stalled = true;
          const until = performance.now() + 300;
          while (performance.now() < until); // the event loop stalls: nothing is read or answered meanwhile
        }
        setTimeout(() => res.end('ok'), delayMs);
      });
      server.keepAliveTimeout = 30_000;
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) });
      });
    });
  const checks: [string, boolean][] = [];
  const check = (label: string, pass: boolean): void => {
    checks.push([label, pass]);
    console.log(`${pass ? 'ok  ' : 'FAIL'} ${label}`);
  };

  const slow = await start(20);
  let r = await openLoop({ url: slow.url, paths: ['/a', '/b'], rate: 200, seconds: 3, warmupSeconds: 0.5 });
  console.log(`server answering after 20 ms: ${describeOpenLoop(r)}`);
  check(`p50 ${r.latency.p50.toFixed(2)} ms is 20-23 ms`, r.latency.p50 >= 20 && r.latency.p50 <= 23);
  check(`p99 ${r.latency.p99.toFixed(2)} ms is under 30 ms`, r.latency.p99 < 30);
  check(`no errors, achieved ${r.achievedRate.toFixed(0)} req/s within 3% of 200`, r.ok === r.requests && Math.abs(r.achievedRate - 200) < 6);
  await slow.close();

  const fast = await start(5);
  r = await openLoop({ url: fast.url, paths: ['/x'], rate: 1000, seconds: 3, warmupSeconds: 0.5 });
  console.log(`server answering after 5 ms, 1,000 req/s: ${describeOpenLoop(r)}`);
  check(`p50 ${r.latency.p50.toFixed(2)} ms is 5-8 ms`, r.latency.p50 >= 5 && r.latency.p50 <= 8);
  check(`send lag p99 ${r.sendLag.p99.toFixed(2)} ms is under 3 ms`, r.sendLag.p99 < 3);
  await fast.close();

  // One stall of 300 ms, 1.5 s into a 3 s phase at 200 req/s: ~60 requests are due during it, and the one due at
  // its start waits ~300 ms. A closed loop of a few connections would record only those few requests as slow.
  const stalling = await start(1);
  stallAt = performance.now() + 50 + 1500;
  r = await openLoop({ url: stalling.url, paths: ['/s'], rate: 200, seconds: 3 });
  console.log(`server answering after 1 ms, stalling once for 300 ms: ${describeOpenLoop(r)}`);
  check(`max ${r.latency.max.toFixed(0)} ms is at least 280 ms`, r.latency.max >= 280);
  check(`p99 ${r.latency.p99.toFixed(0)} ms is at least 200 ms (>= 1% of requests were due during the stall)`, r.latency.p99 >= 200);
  check(`p50 ${r.latency.p50.toFixed(2)} ms stays under 5 ms`, r.latency.p50 < 5);
  await stalling.close();

  const failed = checks.filter(([, pass]) => !pass).length;
  console.log(failed === 0 ? 'open-loop self-check passed' : `open-loop self-check: ${failed} check(s) failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}
