import type { Logger } from '../logger.js';
import type { Count, StoreCacheMetrics } from '../metrics/metrics.js';
import type { TenantRegistry } from '../tenants/registry.js';
import { listedTenants, scopePrefix, type ListedTenant, type SyncScope } from './layout.js';
import { Limiter } from './limiter.js';
import type { ObjectStore } from './object-store.js';
import { listPrefix } from './store-listing.js';
import type { TenantCache } from './tenant-cache.js';
import { syncTenantFiles, UNBOUNDED_ROOM, type SyncOutcome, type TransferProgress } from './tenant-download.js';

/** What the syncs need besides the registry and the store: where keys are, how many at once, the counts. */
export interface TenantSyncOptions {
  prefix: string;
  concurrency: number;
  /** How long a transfer waits for room in a bounded cache (STORE_FETCH_WAIT_MS). */
  roomWaitMs: number;
  downloadedBytes: Count;
  cacheMetrics: StoreCacheMetrics;
}

/**
 * The syncs of single tenants with the store: one at a time per tenant (requests, refreshes and the poll join the
 * one running), at most STORE_CONCURRENCY transfers at once, each within the room of the bounded cache when there
 * is one. An object that changed while it was fetched is listed again and fetched once more.
 */
export class TenantSyncs {
  private readonly jobs = new Map<string, Promise<SyncOutcome>>();
  private readonly transfers = new Map<string, TransferProgress>();
  private readonly limiter: Limiter;
  private readonly abort = new AbortController();
  /** The last failure of each tenant's sync, in the store's own words (for the log line of a request it fails). */
  private readonly failures = new Map<string, string>();

  constructor(
    private readonly registry: TenantRegistry,
    private readonly objects: ObjectStore,
    /** Each tenant as the last listing showed it: a tenant listed again is recorded here. */
    private readonly listings: Map<string, ListedTenant>,
    private readonly cache: TenantCache | null,
    private readonly options: TenantSyncOptions,
    private readonly log: Logger,
  ) {
    this.limiter = new Limiter(options.concurrency);
  }

  /** Whether shutdown has begun. */
  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Whether a sync of the tenant runs. */
  isBusy(compositeId: string): boolean {
    return this.jobs.has(compositeId);
  }

  /** Bytes of the tenant's running transfer, zeros when none runs. */
  progressOf(compositeId: string): { bytesDone: number; bytesTotal: number } {
    const running = this.transfers.get(compositeId);
    return running === undefined ? { bytesDone: 0, bytesTotal: 0 } : { bytesDone: running.bytesDone, bytesTotal: running.bytesTotal };
  }

  /** Seconds until the tenant's running transfer is expected to end at its rate so far, null when unknown. */
  secondsLeft(compositeId: string): number | null {
    const running = this.transfers.get(compositeId);
    if (running === undefined || running.bytesDone === 0) return null;
    const rate = running.bytesDone / Math.max(1, performance.now() - running.startedMs);
    return Math.ceil((running.bytesTotal - running.bytesDone) / rate / 1000);
  }

  /** The last failure of the tenant's sync with its key, address or errno (for the log), null after a success. */
  failureDetail(compositeId: string): string | null {
    return this.failures.get(compositeId) ?? null;
  }

  /** Stops running downloads and waits for them to settle (shutdown). */
  async close(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled([...this.jobs.values()]);
  }

  /** Joins the tenant's running sync, or starts one. */
  sync(listed: ListedTenant): Promise<SyncOutcome> {
    const running = this.jobs.get(listed.compositeId);
    if (running !== undefined) return running;
    const job = this.runSync(listed)
      .catch((err: unknown): SyncOutcome => {
        this.log.error({ tenant: listed.compositeId, err }, 'tenant sync failed');
        return { kind: 'failed', error: 'the sync of the tenant failed', detail: (err as Error).message };
      })
      .then((outcome) => {
        if (outcome.kind === 'current' || outcome.kind === 'installed') this.failures.delete(listed.compositeId);
        else this.failures.set(listed.compositeId, outcome.detail);
        return outcome;
      })
      .finally(() => {
        this.jobs.delete(listed.compositeId);
        const entry = this.registry.get(listed.compositeId);
        if (entry !== undefined) this.cache?.settle(entry);
        this.cache?.budget.retryWaiting();
      });
    this.jobs.set(listed.compositeId, job);
    return job;
  }

  private async runSync(first: ListedTenant): Promise<SyncOutcome> {
    let listed = first;
    const started = performance.now();
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await syncTenantFiles(
        {
          registry: this.registry,
          objects: this.objects,
          log: this.log,
          signal: this.abort.signal,
          progress: this.transfers,
          limited: (task) => this.limiter.run(task),
          reserve: this.cache === null ? UNBOUNDED_ROOM : (id, bytes) => this.cache!.budget.reserve(id, bytes, this.options.roomWaitMs, this.abort.signal),
          settle: (entry) => this.cache?.settle(entry),
          downloadedBytes: this.options.downloadedBytes,
        },
        listed,
      );
      if (outcome.kind === 'installed' && this.cache !== null) {
        this.options.cacheMetrics.fetchedBytes.inc(outcome.bytes);
        this.options.cacheMetrics.observeFetch((performance.now() - started) / 1000);
      }
      if (outcome.kind === 'broken') this.cache?.markBroken(listed, outcome.error);
      if (outcome.kind !== 'changed' || attempt > 0 || this.abort.signal.aborted) return outcome;
      const again = await this.listAgain(listed);
      if (again === null) return outcome;
      listed = again;
      const entry = this.registry.get(listed.compositeId);
      // grown past the bound of the cache: no wait for room that can never be
      if (entry !== undefined && this.cache?.judgeSize(entry, listed) === true) {
        const error = this.cache.tooLargeMessage(listed);
        return { kind: 'failed', error, detail: error };
      }
    }
  }

  /** The tenant listed once more (its object changed while it was fetched); null when it is gone or the listing fails. */
  private async listAgain(listed: ListedTenant): Promise<ListedTenant | null> {
    const scope: SyncScope = { kind: 'tenant', pack: listed.pack, slug: listed.slug };
    const listing = await listPrefix(this.objects, scopePrefix(this.options.prefix, scope));
    if (!listing.complete) return null;
    const again = listedTenants(listing.objects, this.options.prefix).get(listed.compositeId) ?? null;
    if (again !== null) this.listings.set(again.compositeId, again);
    this.log.info({ tenant: listed.compositeId, listed: again !== null }, 'tenant object changed while it was fetched; listed again');
    return again;
  }
}
