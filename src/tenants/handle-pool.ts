import type { Count } from '../metrics/metrics.js';
import type { ConnectionTracker, KlsHandle } from './kls-handle.js';

/**
 * Open tenant connections (and open search sidecars) when TENANT_HANDLES_MAX is not given: enough for the tenants
 * a team works on at once. Each open pair holds 0.4–0.5 MB of the C allocator's main arena (schema, statements,
 * pages), which the process keeps once the files close: the bound, not the tenants served, sets how high the arena
 * stands after many small tenants (docs/decisions/0016-memory.md).
 */
export const DEFAULT_TENANT_HANDLES_MAX = 32;

/**
 * The open KLS connections of all tenants, least recently leased first. Beyond `max` open, idle ones are closed
 * from the least recently leased on (a lease reopens them). Leased and pinned connections are never closed, so
 * while more than `max` tenants have requests in flight at the same moment the count is above `max` until
 * their leases end.
 */
export class HandlePool implements ConnectionTracker {
  /** Insertion order is recency: a lease moves its handle to the end. */
  private readonly open = new Set<KlsHandle>();
  /** Connections closed to keep within `max` (metrics, tests). */
  evictions = 0;

  constructor(
    readonly max: number,
    /** Moved with `evictions` (the tenant_files_closed_total metric). */
    private readonly closedCount?: Count,
  ) {}

  /** Connections open now, leased, idle or draining. */
  get size(): number {
    return this.open.size;
  }

  opened(handle: KlsHandle): void {
    this.open.add(handle);
    // the handle just opened is about to be used (or read by install): make room among the others
    this.trim(handle);
  }

  used(handle: KlsHandle): void {
    this.open.delete(handle);
    this.open.add(handle);
  }

  idle(): void {
    this.trim(null);
  }

  closed(handle: KlsHandle): void {
    this.open.delete(handle);
  }

  private trim(keep: KlsHandle | null): void {
    if (this.open.size <= this.max) return;
    // deleting the entry being visited (evict → closed) is safe while iterating a Set
    for (const handle of this.open) {
      if (this.open.size <= this.max) return;
      if (handle !== keep && handle.evict()) {
        this.evictions += 1;
        this.closedCount?.inc();
      }
    }
  }
}
