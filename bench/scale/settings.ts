// Sizes and durations of `npm run bench scale`, from the environment: the full run by default, small data and
// short phases with SCALE_QUICK=1 (to check the harness, not figures to quote), each one overridable on its own.
import path from 'node:path';

export const MEASURES = ['search', 'jumpbar', 'export', 'idle', 'tenants'] as const;
export type Measure = (typeof MEASURES)[number];

export interface ScaleSettings {
  quick: boolean;
  /** Which measures run (SCALE_ONLY=search,export…); the table lists the others as not run. */
  only: ReadonlySet<Measure>;
  /** Generated search items per tenant (search and idle RSS). */
  searchItems: number;
  /** Offered loads of the open-loop sweep, req/s. */
  rates: number[];
  /** The sweep step the table reports. */
  tableRate: number;
  /** Length of each measured load phase (sweep steps, closed loop, jumpbar runs), seconds. */
  seconds: number;
  /** Warm-up before each sweep step (same schedule, not recorded), seconds. */
  warmupSeconds: number;
  /**
   * Warm-up of the server and of bare Koa before the jumpbar comparison, seconds: at ~15,000 req/s the server's
   * CPU per request still fell for ~30 s (V8 keeps optimizing), so a short warm-up measures the JIT, not the
   * steady state.
   */
  jumpbarWarmupSeconds: number;
  connections: number;
  /** Rows of the exported materials table. */
  exportRows: number;
  exportRuns: number;
  /** Idle time before the idle RSS is read, seconds. */
  idleSeconds: number;
  /** Tenants of the small-tenants measure. */
  smallTenants: number;
  /** Tenants served at once in the small-tenants measure (exports: at most 2 at once, EXPORTS_PER_CALLER's default). */
  smallConcurrency: number;
  /** Where the sweep chart goes. */
  chartFile: string;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${raw}")`);
  return value;
}

/** Reads SCALE_* from the environment. */
export function scaleSettings(): ScaleSettings {
  const quick = process.env['SCALE_QUICK'] === '1';
  const rates = (process.env['SCALE_RATES'] ?? '250,500,1000,1500').split(',').map((r) => Number(r.trim()));
  if (rates.some((r) => !(r > 0))) throw new Error(`SCALE_RATES must list positive rates (got "${process.env['SCALE_RATES']}")`);
  const onlyRaw = process.env['SCALE_ONLY'];
  const only = new Set<Measure>(
    onlyRaw === undefined || onlyRaw.trim() === ''
      ? MEASURES
      : onlyRaw.split(',').map((m) => {
          const measure = m.trim() as Measure;
          if (!MEASURES.includes(measure)) throw new Error(`SCALE_ONLY: unknown measure "${m}" (known: ${MEASURES.join(', ')})`);
          return measure;
        }),
  );
  const tableRate = positive('SCALE_TABLE_RATE', 1000);
  return {
    quick,
    only,
    searchItems: positive('SCALE_SEARCH_ITEMS', quick ? 20_000 : 200_000),
    rates,
    tableRate: rates.includes(tableRate) ? tableRate : rates.reduce((a, b) => (Math.abs(b - tableRate) < Math.abs(a - tableRate) ? b : a)),
    seconds: positive('SCALE_SECONDS', quick ? 3 : 10),
    warmupSeconds: positive('SCALE_WARMUP_SECONDS', quick ? 1 : 2),
    jumpbarWarmupSeconds: positive('SCALE_JUMPBAR_WARMUP_SECONDS', quick ? 2 : 20),
    connections: positive('SCALE_CONNECTIONS', 50),
    exportRows: positive('SCALE_EXPORT_ROWS', quick ? 50_000 : 1_000_000),
    exportRuns: positive('SCALE_EXPORT_RUNS', 3),
    idleSeconds: positive('SCALE_IDLE_SECONDS', quick ? 3 : 10),
    smallTenants: positive('SCALE_TENANTS', quick ? 50 : 1000),
    smallConcurrency: positive('SCALE_TENANT_CONCURRENCY', 4),
    chartFile: path.resolve(import.meta.dirname, '..', 'out', quick ? 'search-latency.quick.svg' : 'search-latency.svg'),
  };
}

/** One line naming the settings, printed first. */
export const describeSettings = (s: ScaleSettings): string =>
  `${s.quick ? 'QUICK RUN (SCALE_QUICK=1: small data, short phases; not figures to quote)' : 'full run'}: measures ${[...s.only].join(', ')}; ` +
  `search ${s.searchItems.toLocaleString('en-US')} items per tenant, sweep ${s.rates.join(', ')} req/s (${s.warmupSeconds} s warm-up + ${s.seconds} s each), ` +
  `closed loop ${s.connections} connections ${s.seconds} s; jumpbar warm-up ${s.jumpbarWarmupSeconds} s each; export ${s.exportRows.toLocaleString('en-US')} rows x ${s.exportRuns}; idle ${s.idleSeconds} s; ` +
  `${s.smallTenants} small tenants, ${s.smallConcurrency} at once`;
