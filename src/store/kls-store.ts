import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import type { Count } from '../metrics/metrics.js';
import type { TenantRegistry } from '../tenants/registry.js';
import type { TenantEntry } from '../tenants/tenants.js';
import { removeLeftoverTemps } from './cache-files.js';
import { TENANT_FILES, isInScope, listedTenants, scopePrefix, type ListedTenant, type SyncScope } from './layout.js';
import { Limiter } from './limiter.js';
import { toObjectStoreError, type ObjectStore, type StoredObject } from './object-store.js';
import { syncTenantFiles, type TransferProgress } from './tenant-download.js';

/** A listing that takes longer than this counts as the store being unreachable. */
const LIST_TIMEOUT_MS = 30_000;

/** What a refresh did (or, answered at once, started). */
export interface StoreRefreshOutcome {
  status: 'started' | 'completed';
  invalidated: number;
  tenants: number;
  ready: number;
  /** With `wait`: the store-level error of this refresh (listing failed), else null. */
  error: string | null;
}

/**
 * KLS store mode (docs/object-store.md): keeps KLS_DIR a cache of `<prefix><pack>/<slug>/{kls,sis}.sqlite`.
 * Serves cached files at once, syncs with the store at start and on refresh, shares running downloads,
 * drops tenants that vanished from the store.
 */
export class KlsStore {
  private readonly jobs = new Map<string, Promise<void>>();
  private readonly transfers = new Map<string, TransferProgress>();
  private readonly limiter: Limiter;
  private readonly abort = new AbortController();
  private firstSyncDone = false;
  private reachedOnce = false;
  private lastError: string | null = null;

  constructor(
    private readonly registry: TenantRegistry,
    private readonly objects: ObjectStore,
    private readonly options: { prefix: string; concurrency: number; downloadedBytes: Count },
    private readonly log: Logger,
  ) {
    this.limiter = new Limiter(options.concurrency);
  }

  /** Puts the cached tenant files into service, then syncs with the store (the promise ends with that first sync). */
  start(): Promise<void> {
    fs.mkdirSync(this.registry.klsDir, { recursive: true });
    this.registry.scanLocal();
    for (const entry of this.registry.list()) removeLeftoverTemps(entry.dir);
    this.log.info({ cached: this.registry.list().length }, 'store mode: cached tenant files in service; syncing with the object store');
    const started = performance.now();
    return this.sync({ kind: 'all' }).then((error) => {
      this.firstSyncDone = true;
      const ms = Math.round(performance.now() - started);
      this.log.info({ ms, tenants: this.registry.list().length, error }, 'first sync with the object store finished');
    });
  }

  /** Whether the first sync with the store has finished (successfully or not: see `error`). */
  get initialized(): boolean {
    return this.firstSyncDone;
  }

  /** The last store-level error (listing failed), null once a listing succeeds. */
  get error(): string | null {
    return this.lastError;
  }

  /** True when no listing has ever succeeded and the last one failed. */
  get neverReached(): boolean {
    return !this.reachedOnce && this.lastError !== null;
  }

  /** Bytes of the tenant's running transfer, zeros when none runs. */
  progressOf(compositeId: string): TransferProgress {
    const running = this.transfers.get(compositeId);
    return running === undefined ? { bytesDone: 0, bytesTotal: 0 } : { ...running };
  }

  /** Invalidates the cached files in scope and syncs them with the store; `wait` answers when the sync has finished. */
  async refresh(scope: SyncScope, wait: boolean): Promise<StoreRefreshOutcome> {
    const cachedFiles = this.inScope(scope).reduce(
      (sum, entry) => sum + TENANT_FILES.filter((name) => fs.existsSync(path.join(entry.dir, name))).length,
      0,
    );
    const sync = this.sync(scope);
    if (!wait) {
      const tenants = this.inScope(scope);
      return { status: 'started', invalidated: cachedFiles, tenants: tenants.length, ready: countReady(tenants), error: null };
    }
    const error = await sync;
    const tenants = this.inScope(scope);
    return { status: 'completed', invalidated: cachedFiles, tenants: tenants.length, ready: countReady(tenants), error };
  }

  /** Stops running downloads and waits for them to settle (shutdown). */
  async close(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled([...this.jobs.values()]);
  }

  /** Lists the scope, drops tenants that vanished, syncs every listed tenant. Resolves with the store-level error, if any. */
  private sync(scope: SyncScope): Promise<string | null> {
    return this.syncOnce(scope).catch((err: unknown) => {
      this.log.error({ err }, 'object store sync failed');
      return `sync failed: ${(err as Error).message}`;
    });
  }

  private async syncOnce(scope: SyncScope): Promise<string | null> {
    let objects: StoredObject[];
    try {
      objects = await this.listWithTimeout(scopePrefix(this.options.prefix, scope));
    } catch (err) {
      this.lastError = `object store unreachable: ${toObjectStoreError(err, 'listing failed').message}`;
      this.log.warn({ err: this.lastError }, 'object store sync failed; cached tenant files stay in service');
      return this.lastError;
    }
    this.reachedOnce = true;
    this.lastError = null;
    const listed = listedTenants(objects, this.options.prefix);
    for (const entry of this.inScope(scope)) {
      if (!listed.has(entry.compositeId) && !this.jobs.has(entry.compositeId)) this.forget(entry);
    }
    await Promise.all([...listed.values()].filter((t) => isInScope(scope, t.pack, t.slug)).map((t) => this.syncTenant(t)));
    return null;
  }

  /** Joins the tenant's running sync, or starts one. */
  private syncTenant(listed: ListedTenant): Promise<void> {
    const running = this.jobs.get(listed.compositeId);
    if (running !== undefined) return running;
    const job = syncTenantFiles(
      {
        registry: this.registry,
        objects: this.objects,
        log: this.log,
        signal: this.abort.signal,
        progress: this.transfers,
        limited: (task) => this.limiter.run(task),
        downloadedBytes: this.options.downloadedBytes,
      },
      listed,
    )
      .catch((err: unknown) => {
        this.log.error({ tenant: listed.compositeId, err }, 'tenant sync failed');
      })
      .finally(() => this.jobs.delete(listed.compositeId));
    this.jobs.set(listed.compositeId, job);
    return job;
  }

  /** A tenant no longer in the store leaves the list; its cached files go (app-database data stays). */
  private forget(entry: TenantEntry): void {
    this.registry.remove(entry.compositeId);
    fs.rmSync(entry.dir, { recursive: true, force: true });
    this.log.info({ tenant: entry.compositeId }, 'tenant vanished from the object store');
  }

  private inScope(scope: SyncScope): TenantEntry[] {
    return this.registry.list().filter((entry) => isInScope(scope, entry.pack, entry.slug));
  }

  private listWithTimeout(prefix: string): Promise<StoredObject[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${LIST_TIMEOUT_MS / 1000} s`)), LIST_TIMEOUT_MS);
    });
    return Promise.race([this.objects.list(prefix), timeout]).finally(() => clearTimeout(timer));
  }
}

const countReady = (entries: TenantEntry[]): number => entries.filter((e) => e.status === 'ready').length;
