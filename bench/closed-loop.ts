// Closed-loop load with autocannon: a fixed number of connections, each sending its next request when the answer to
// the previous one has arrived. It measures throughput; its latencies are those of a queue the client itself
// keeps full (at saturation about connections / throughput), not those of an offered load (bench/open-loop.ts).
// autocannon runs in the bench's process, as bench/search.bench.ts has always run it.
import { createRequire } from 'node:module';
import { percentile, procCpuMs } from './stats.js';

interface Autocannon {
  (options: Record<string, unknown>): Promise<{ requests: { average: number }; non2xx: number; errors: number }> & {
    on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  };
}
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** The server behind a load: its URL and, to measure its CPU time, its process id. */
export interface Target {
  url: string;
  pid?: number;
}

/** What a closed-loop run measured. */
export interface ClosedLoopResult {
  p50: number;
  p95: number;
  p99: number;
  /** Requests per second (autocannon's average over the run). */
  rps: number;
  count: number;
  statuses: Map<number, number>;
  /** Network errors and timeouts (autocannon counts timeouts among its errors). */
  errors: number;
  /** The server's CPU time (user + system) per request, in ms; NaN without a pid. */
  cpuMsPerRequest: number;
}

export interface ClosedLoopOptions {
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
}

/**
 * Runs autocannon over `paths` (a list, cycled, or a function giving the next path) and returns per-request
 * latencies, throughput and the server's CPU time per request: on a two-core machine the client may be the
 * bottleneck, and that figure is the server's own.
 */
export async function closedLoop(target: Target, paths: readonly string[] | (() => string), options: ClosedLoopOptions): Promise<ClosedLoopResult> {
  const { url, pid } = target;
  const cpuBefore = pid === undefined ? Number.NaN : procCpuMs(pid);
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const requests =
    typeof paths === 'function'
      ? [{ method: 'GET', setupRequest: (request: object) => ({ ...request, path: paths() }) }]
      : paths.map((p) => ({ method: 'GET', path: p }));
  const run = autocannon({ url, connections: options.connections, duration: options.seconds, headers: options.headers ?? {}, requests });
  run.on('response', (_client, status, _bytes, ms) => {
    latencies.push(ms);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const result = await run;
  const cpuMs = pid === undefined ? Number.NaN : procCpuMs(pid) - cpuBefore;
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    rps: result.requests.average,
    count: latencies.length,
    statuses,
    errors: result.errors,
    cpuMsPerRequest: cpuMs / Math.max(1, latencies.length),
  };
}
