import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { CostLimitsConfig } from '../config.js';
import { Problem } from '../common/problems.js';
import type { Caller } from './caller.js';

/** The limited kinds of costly work, as operations name them in the contract's `x-cost`. */
export const COST_KINDS = ['narrative', 'export', 'signal-tool'] as const;
/**
 * One limited kind of costly work: those of the contract, and `tenant-fetch`, the fetch of a tenant into the
 * bounded store cache, which a request counts when it finds its tenant not cached (whatever operation it is).
 */
export type CostKind = (typeof COST_KINDS)[number] | 'tenant-fetch';

/** The kinds counted per minute. */
export const PER_MINUTE_KINDS = ['narrative', 'signal-tool', 'tenant-fetch'] as const;

/** True when `value` names a limited kind of costly work. */
export const isCostKind = (value: unknown): value is CostKind => typeof value === 'string' && (COST_KINDS as readonly string[]).includes(value);

/** Retry-After of a refused export: an export's end cannot be foreseen. */
const EXPORT_RETRY_AFTER_S = 10;

/** The limits as counted in one process (a lease belongs to the shared counters only). */
export type LimitSizes = Omit<CostLimitsConfig, 'exportLeaseMs'>;

/** The kinds of costly work counted per minute. */
export type PerMinuteKind = Exclude<CostKind, 'export'>;

/** Releases what an admitted call holds (a concurrent-export slot); a no-op for per-minute limits. */
export type Release = () => void;

/** The port of the limits on costly work: admits a call or refuses it with 429. */
export interface CostLimiter {
  /** Resolves to the release of what the call holds, or throws the 429 problem (with Retry-After). */
  admit(kind: CostKind, caller: Caller): Promise<Release>;
}

/** A CostLimiter with what it holds open (a database pool), released on shutdown. */
export interface OwnedCostLimiter extends CostLimiter {
  close(): Promise<void>;
}

/**
 * Limits per caller (`Caller.limitKey`): narratives, signal tool runs and tenant fetches per minute (fixed
 * one-minute windows), and exports running at once. Counters live in this process (rate-limiter-flexible's memory store).
 */
export class CostLimits implements OwnedCostLimiter {
  private readonly perMinute: Partial<Record<PerMinuteKind, RateLimiterMemory>> = {};
  private readonly exports: RateLimiterMemory | null;

  constructor(private readonly config: LimitSizes) {
    for (const kind of PER_MINUTE_KINDS) {
      const points = perMinuteLimit(config, kind);
      if (points > 0) this.perMinute[kind] = new RateLimiterMemory({ keyPrefix: kind, points, duration: 60 });
    }
    // duration 0: points are never reset by time, only given back when an export ends
    this.exports = config.exportsPerCaller > 0 ? new RateLimiterMemory({ keyPrefix: 'exports', points: config.exportsPerCaller, duration: 0 }) : null;
  }

  /**
   * Admits one call of costly work of `kind` for `caller`: resolves to its release, or throws 429 problem with
   * Retry-After. A refused call takes nothing: a refused export gives its point back at once.
   */
  async admit(kind: CostKind, caller: Caller): Promise<Release> {
    if (kind === 'export') return this.admitExport(caller);
    const limiter = this.perMinute[kind];
    if (limiter === undefined) return noop;
    try {
      await limiter.consume(caller.limitKey);
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      throw perMinuteRefusal(this.config, kind, refused.msBeforeNext);
    }
    return noop;
  }

  /** Releases nothing: the counters live in this process. */
  async close(): Promise<void> {}

  private async admitExport(caller: Caller): Promise<Release> {
    const limiter = this.exports;
    if (limiter === null) return noop;
    try {
      await limiter.consume(caller.limitKey);
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      await limiter.reward(caller.limitKey);
      throw exportRefusal(this.config);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      void limiter.reward(caller.limitKey);
    };
  }
}

/** The release of a call that holds nothing. */
export const noop: Release = () => {};

/** The per-minute limit of `kind` (0: off). */
export const perMinuteLimit = (config: LimitSizes, kind: PerMinuteKind): number =>
  kind === 'narrative' ? config.narrativesPerMinute : kind === 'signal-tool' ? config.signalToolsPerMinute : config.tenantFetchesPerMinute;

/** What a per-minute limit counts, as its 429 names it. */
const perMinuteWork = (config: LimitSizes, kind: PerMinuteKind): string =>
  kind === 'narrative'
    ? `${config.narrativesPerMinute} narratives`
    : kind === 'signal-tool'
      ? `${config.signalToolsPerMinute} signal validations and compilations`
      : `${config.tenantFetchesPerMinute} fetches of tenants not in the cache`;

/** The 429 problem of a per-minute limit, retry when the caller's window ends (`msBeforeNext`). */
export function perMinuteRefusal(config: LimitSizes, kind: PerMinuteKind, msBeforeNext: number): Problem {
  return tooMany(`at most ${perMinuteWork(config, kind)} per minute per caller`, Math.ceil(msBeforeNext / 1000));
}

/** The 429 problem of an export past the caller's exports at once. */
export const exportRefusal = (config: LimitSizes): Problem => tooMany(`at most ${config.exportsPerCaller} exports at once per caller`, EXPORT_RETRY_AFTER_S);

const tooMany = (detail: string, retryAfterS: number): Problem =>
  new Problem('too-many-requests', `${detail}; retry in ${Math.max(1, retryAfterS)} s`, { retryAfterSeconds: Math.max(1, retryAfterS) });
