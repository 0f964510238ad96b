import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { CostLimitsConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Caller } from './caller.js';
import { CostLimits, PER_MINUTE_KINDS, exportRefusal, noop, perMinuteLimit, perMinuteRefusal, type CostKind, type OwnedCostLimiter, type PerMinuteKind, type Release } from './cost-limits.js';
import { ExportLeases } from './export-leases.js';
import { LimitStore, WINDOWS_TABLE } from './limit-store.js';

/** How often rows nobody counts in any more are deleted. */
const SWEEP_INTERVAL_MS = 5 * 60_000;
/** Windows are kept an hour past their end (as rate-limiter-flexible's own sweep does). */
const WINDOW_KEPT_MS = 3_600_000;

/**
 * The limits on costly work counted in the PostgreSQL app database, so that every instance on it counts the same
 * budget: narratives, signal tool runs and tenant fetches per minute in rate-limiter-flexible's PostgreSQL store, exports at once as
 * leases (ExportLeases). While the database does not answer, each instance counts on its own, as with SQLite: the
 * per-minute limits through rate-limiter-flexible's insurance limiter (a memory store of the same size), exports
 * through this process's counter. Keys are SHA-256 digests of `Caller.limitKey`: no address or subject is stored.
 */
export class SharedCostLimits implements OwnedCostLimiter {
  private readonly perMinute: Partial<Record<PerMinuteKind, RateLimiterPostgres>> = {};
  private readonly leases: ExportLeases | null;
  /** This process's counters, for exports while the database does not answer. */
  private readonly local: CostLimits;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly config: CostLimitsConfig,
    private readonly store: LimitStore,
    log: Logger,
  ) {
    for (const kind of PER_MINUTE_KINDS) {
      const points = perMinuteLimit(config, kind);
      if (points <= 0) continue;
      this.perMinute[kind] = new RateLimiterPostgres({
        storeClient: store,
        storeType: 'pool',
        tableName: WINDOWS_TABLE,
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix: kind,
        points,
        duration: 60,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: kind, points, duration: 60 }),
      });
    }
    this.leases = config.exportsPerCaller > 0 ? new ExportLeases(store, config.exportsPerCaller, config.exportLeaseMs, log) : null;
    this.local = new CostLimits(config);
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** Opens the limits' own pool on the PostgreSQL app database at `url`. */
  static async open(config: CostLimitsConfig, url: string, log: Logger): Promise<SharedCostLimits> {
    return new SharedCostLimits(config, await LimitStore.open(url, log), log);
  }

  /** As CostLimits.admit, counted across every instance on the app database. */
  async admit(kind: CostKind, caller: Caller): Promise<Release> {
    if (kind === 'export') return this.admitExport(caller);
    const limiter = this.perMinute[kind];
    if (limiter === undefined) return noop;
    try {
      await limiter.consume(keyOf(caller));
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      throw perMinuteRefusal(this.config, kind, refused.msBeforeNext);
    }
    return noop;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.leases?.close();
    await this.store.close();
  }

  private async admitExport(caller: Caller): Promise<Release> {
    if (this.leases === null) return noop;
    let release: Release | null;
    try {
      release = await this.leases.take(keyOf(caller));
    } catch {
      return this.local.admit('export', caller);
    }
    if (release === null) throw exportRefusal(this.config);
    return release;
  }

  private async sweep(): Promise<void> {
    try {
      await this.store.query({ text: `DELETE FROM ${WINDOWS_TABLE} WHERE expire < $1`, values: [Date.now() - WINDOW_KEPT_MS] });
      await this.leases?.sweep();
    } catch {
      // the next sweep deletes them
    }
  }
}

/** The stored key of a caller: a digest, so that the table holds no address or token subject. */
const keyOf = (caller: Caller): string => createHash('sha256').update(caller.limitKey).digest('base64url');
