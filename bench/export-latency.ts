// Latency of other clients' requests while costly reads of a tenant file run (bench/export.bench.ts): GET /health
// and a search on another tenant, each open loop (bench/open-loop.ts: latency from the moment a request was due),
// first with nothing else running, then while clients repeat a costly request back to back.
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { median } from './stats.js';

/** What a costly client did during a phase. */
export interface CostlyRuns {
  count: number;
  medianMs: number;
  failed: number;
}

/** One phase: the two open loops, and the costly requests sent meanwhile (null: none). */
export interface LatencyPhase {
  name: string;
  health: OpenLoopResult;
  search: OpenLoopResult;
  costly: CostlyRuns | null;
}

export interface LatencyOptions {
  /** Search paths on a tenant other than the costly requests'. */
  searchPaths: readonly string[];
  /** Phases by name: the costly request repeated meanwhile, or null for none. */
  phases: Readonly<Record<string, { path: string; headers?: Record<string, string> } | null>>;
  /** Open-loop rate of each of the two loops, req/s. */
  rate: number;
  seconds: number;
  warmupSeconds: number;
  /** Costly clients at once (EXPORTS_PER_CALLER allows 2 exports per caller by default). */
  clients: number;
}

/** `clients` loops sending the costly request one at a time, each read to its end, until `done()`. */
async function repeatUntil(url: string, costly: { path: string; headers?: Record<string, string> }, clients: number, done: () => boolean): Promise<CostlyRuns> {
  const times: number[] = [];
  let failed = 0;
  const client = async (): Promise<void> => {
    while (!done()) {
      const started = performance.now();
      try {
        const res = await fetch(url + costly.path, { headers: costly.headers ?? {} });
        await res.arrayBuffer();
        if (res.status === 200) times.push(performance.now() - started);
        else failed += 1;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return { count: times.length, medianMs: median(times), failed };
}

/** Runs every phase in turn against the server at `url`. */
export async function measureLatency(url: string, options: LatencyOptions): Promise<LatencyPhase[]> {
  const phases: LatencyPhase[] = [];
  for (const [name, costly] of Object.entries(options.phases)) {
    let over = false;
    const loops = Promise.all([
      openLoop({ url, paths: ['/health'], rate: options.rate, seconds: options.seconds, warmupSeconds: options.warmupSeconds }),
      openLoop({ url, paths: options.searchPaths, rate: options.rate, seconds: options.seconds, warmupSeconds: options.warmupSeconds }),
    ]).finally(() => (over = true));
    const runs = costly === null ? null : await repeatUntil(url, costly, options.clients, () => over);
    const [health, search] = await loops;
    phases.push({ name, health, search, costly: runs });
    // what a stalled server still owes the phase is answered before the next one starts
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  return phases;
}

const ms = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(1));

/** `p50 / p99 ms` of a loop, with its failures when there were any. */
export function describeLatency(result: OpenLoopResult): string {
  const errors = result.non2xx + result.networkErrors + result.timedOut;
  return `${ms(result.latency.p50)} / ${ms(result.latency.p99)}${errors > 0 ? ` (${errors} failed)` : ''}`;
}
