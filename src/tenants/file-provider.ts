import type { FetchAdmission } from './fetch-admission.js';
import type { TenantEntry, TenantFileStat } from './tenants.js';

/**
 * What puts a tenant's file in service when a lease finds none (store mode with a bounded cache: a fetch on
 * demand), and hears how the files in service are used (recency for eviction, hits and misses).
 */
export interface FileProvider {
  /**
   * Puts the tenant's file in service, or throws the problem to answer (503 with Retry-After while it is not there
   * in time). Resolves with a function that ends the pin that keeps the file in service until the caller has leased it.
   * A fetch it would start (none runs for the tenant) is first admitted by `admitFetch`, whose refusal it throws.
   * Once `clientGone` aborts (the request's client closed its connection), it starts nothing and waits no longer.
   */
  provide(entry: TenantEntry, admitFetch?: FetchAdmission, clientGone?: AbortSignal): Promise<() => void>;
  /** A lease was taken on the tenant's file; `fetched` when it had to wait for provide(). */
  used(entry: TenantEntry, fetched: boolean): void;
  /** A lease of the tenant's file ended. */
  idle(entry: TenantEntry): void;
  /** File facts of a tenant whose file is not in service (from the store's listing), or null when unknown. */
  describe(entry: TenantEntry): TenantFileStat | null;
}

/** Whether the tenant has a file in service (its connection may be closed while idle, and is opened again on lease). */
export const isInService = (entry: TenantEntry): boolean => entry.handle !== null && !entry.handle.isRetired;
