import { isComparedStatus, type DriftReport } from './drift-check.js';

/** How long a result of a comparison (`in_sync`, `behind`) is served from the cache. */
export const DRIFT_RESULT_TTL_MS = 5 * 60_000;
/** How long a failure status is served from the cache. */
export const DRIFT_FAILURE_TTL_MS = 30_000;

interface Slot {
  generation: number;
  pending: Promise<DriftReport>;
  /** Set once the check has finished. */
  expiresAt: number | null;
}

/** A cached report and how long it stays valid. */
export interface CachedDrift {
  report: DriftReport;
  /** Whole seconds until the cached report expires (for Cache-Control). */
  maxAgeSeconds: number;
}

/**
 * Drift reports per tenant and generation of its file: a swapped file starts afresh (its build commit may
 * differ). Concurrent requests for one tenant share one outbound call. Kept per server instance.
 */
export class DriftCache {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The cached report of `tenant` at `generation`, else the report `check` produces (then cached). */
  async get(tenant: string, generation: number, check: () => Promise<DriftReport>): Promise<CachedDrift> {
    let slot = this.slots.get(tenant);
    if (slot === undefined || slot.generation !== generation || (slot.expiresAt !== null && slot.expiresAt <= this.now())) {
      const created: Slot = { generation, pending: check(), expiresAt: null };
      slot = created;
      this.slots.set(tenant, created);
      created.pending.then(
        (report) => {
          created.expiresAt = this.now() + (isComparedStatus(report.status) ? DRIFT_RESULT_TTL_MS : DRIFT_FAILURE_TTL_MS);
        },
        () => {
          // An unexpected failure (not a drift status) is not cached.
          if (this.slots.get(tenant) === created) this.slots.delete(tenant);
        },
      );
    }
    const report = await slot.pending;
    const expiresAt = slot.expiresAt ?? this.now() + (isComparedStatus(report.status) ? DRIFT_RESULT_TTL_MS : DRIFT_FAILURE_TTL_MS);
    return { report, maxAgeSeconds: Math.max(0, Math.ceil((expiresAt - this.now()) / 1000)) };
  }

  /** Forgets every cached report. */
  clear(): void {
    this.slots.clear();
  }
}
