import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { StoreCacheConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Count, StoreCacheMetrics } from '../metrics/metrics.js';
import { isInService } from '../tenants/file-provider.js';
import type { TenantRegistry } from '../tenants/registry.js';
import type { TenantEntry } from '../tenants/tenants.js';
import { removeLeftoverTemps } from './cache-files.js';
import { TENANT_FILES, isInScope, listedTenants, scopePrefix, type ListedTenant, type SyncScope } from './layout.js';
import type { ObjectStore } from './object-store.js';
import { listPrefix } from './store-listing.js';
import { TenantCache, type FetchSource } from './tenant-cache.js';
import { TenantSyncs } from './tenant-syncs.js';
import { warmOrder } from './warm-list.js';
import { indexRoomFor } from '../search/build-room.js';

/** What a refresh did (or, answered at once, started). */
export interface StoreRefreshOutcome {
  status: 'started' | 'completed';
  invalidated: number;
  tenants: number;
  ready: number;
  /** With `wait`: the store-level error of this refresh (listing failed), else null. */
  error: string | null;
  /** Who carries it out: every instance on the PostgreSQL app database (`cluster`), or this one alone. */
  reach: 'cluster' | 'instance';
}

/** What tells the other instances of a refresh (the refresh channel on a PostgreSQL app database). */
export interface RefreshAnnouncer {
  readonly state: 'shared' | 'reconnecting';
  /** False when the others could not be told. */
  announce(scope: SyncScope): Promise<boolean>;
}

/** The store's settings: where its keys are, how many transfers at once, the cache, and where the counts go. */
export interface KlsStoreOptions {
  prefix: string;
  concurrency: number;
  cache: StoreCacheConfig;
  downloadedBytes: Count;
  cacheMetrics: StoreCacheMetrics;
}

/**
 * KLS store mode (docs/object-store.md): keeps KLS_DIR a cache of `<prefix><pack>/<slug>/{kls,sis}.sqlite`.
 * Serves cached files at once, syncs with the store at start, on refresh and on its poll, shares running downloads,
 * drops tenants that vanished from the store. Without a bound every listed tenant is downloaded and kept; with
 * STORE_CACHE_MAX_MB (`cache`) a tenant is fetched on its first use and cached ones are kept in step with the store.
 */
export class KlsStore implements FetchSource {
  /** The bounded cache; null when every listed tenant is downloaded and kept. */
  readonly cache: TenantCache | null;
  /** A name this instance drew at its start, to tell the store-status of instances behind a load balancer apart. */
  readonly instance = randomBytes(4).toString('hex');
  private announcer: RefreshAnnouncer | null = null;
  /** Each tenant as the last listing that covered it showed it. */
  private readonly listings = new Map<string, ListedTenant>();
  private readonly syncs: TenantSyncs;
  private firstSyncDone = false;
  private reachedOnce = false;
  private lastError: string | null = null;
  private pollTimer: NodeJS.Timeout | undefined;
  /** The fetches of STORE_WARM after the first listing (resolved at once without a bounded cache). */
  private warmUp: Promise<void> = Promise.resolve();
  private startUp: Promise<void> = Promise.resolve();
  private polling: Promise<unknown> | null = null;
  /** Syncs still listing, by the prefix they list, with the moment their listing is done. */
  private readonly listingSyncs = new Map<string, { job: Promise<string | null>; listed: Promise<void> }>();
  /**
   * The sync that follows a running listing, by prefix: every sync of the prefix asked for while that listing runs
   * shares it (the running listing may have read the store before what they ask for changed).
   */
  private readonly nextSyncs = new Map<string, Promise<string | null>>();
  /** Vanished tenants whose files a request still held when they left: deleted by a later listing. */
  private readonly leftovers = new Map<string, TenantEntry>();
  /** Every sync running (shutdown waits for them). */
  private readonly running = new Set<Promise<string | null>>();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly registry: TenantRegistry,
    private readonly objects: ObjectStore,
    private readonly options: KlsStoreOptions,
    private readonly log: Logger,
  ) {
    const { maxBytes, fetchWaitMs } = options.cache;
    this.cache = maxBytes === null ? null : new TenantCache(registry, this, maxBytes, fetchWaitMs, options.cacheMetrics, log);
    if (this.cache !== null) registry.provideFilesWith(this.cache);
    const { prefix, concurrency, downloadedBytes, cacheMetrics } = options;
    this.syncs = new TenantSyncs(registry, objects, this.listings, this.cache, { prefix, concurrency, roomWaitMs: fetchWaitMs, downloadedBytes, cacheMetrics }, log);
  }

  /**
   * Puts the cached tenant files into service, then syncs with the store (the promise ends with that first sync;
   * with a bounded cache, with its listing, while the warm tenants are fetched after it).
   */
  start(): Promise<void> {
    fs.mkdirSync(this.registry.klsDir, { recursive: true });
    this.registry.scanLocal();
    for (const entry of this.registry.list()) removeLeftoverTemps(entry.dir);
    this.cache?.adoptCached();
    this.log.info(
      { instance: this.instance, cached: this.registry.list().length, maxBytes: this.options.cache.maxBytes },
      'store mode: cached tenant files in service; syncing with the object store',
    );
    const seconds = this.options.cache.pollSeconds;
    if (seconds !== null) {
      this.pollTimer = setInterval(() => this.poll(), seconds * 1000);
      this.pollTimer.unref();
    }
    const started = performance.now();
    const initialized = (error: string | null): void => {
      if (this.firstSyncDone) return;
      this.firstSyncDone = true;
      const ms = Math.round(performance.now() - started);
      this.log.info({ ms, tenants: this.registry.list().length, error }, 'first sync with the object store finished');
    };
    const first = this.sync({ kind: 'all' }, this.cache === null ? undefined : initialized);
    this.startUp = first.then((error) => {
      initialized(error);
      if (this.cache !== null && !this.syncs.stopped) this.warmUp = this.warm();
    });
    return this.startUp;
  }

  /** Resolves once the fetches of STORE_WARM have ended (after the first sync; tests, benchmarks). */
  async warmed(): Promise<void> {
    await this.startUp;
    await this.warmUp;
  }

  /** Whether the first sync with the store has finished (successfully or not: see `error`); with a bounded cache, its listing. */
  get initialized(): boolean {
    return this.firstSyncDone;
  }

  /** The last store-level error (listing failed, or incomplete), null once a listing succeeds. */
  get error(): string | null {
    return this.lastError;
  }

  /** True when no listing has ever succeeded and the last one failed. */
  get neverReached(): boolean {
    return !this.reachedOnce && this.lastError !== null;
  }

  /** Has refreshes received here announced to the other instances, and theirs carried out here (refreshAnnounced). */
  shareRefreshes(announcer: RefreshAnnouncer): void {
    this.announcer = announcer;
  }

  /** How refreshes of other instances reach this one: `shared`, `reconnecting`, or `local` (one instance). */
  get refreshes(): 'shared' | 'reconnecting' | 'local' {
    return this.announcer?.state ?? 'local';
  }

  /** Carries out a refresh another instance received (or a catch-up after a time without hearing them). */
  refreshAnnounced(scope: SyncScope): void {
    if (!this.syncs.stopped) void this.sync(scope);
  }

  /** Tenants whose files are in service on this instance. */
  cachedTenants(): number {
    return this.registry.list().filter(isInService).length;
  }

  /** Bytes of the tenant's running transfer, zeros when none runs. */
  progressOf(compositeId: string): { bytesDone: number; bytesTotal: number } {
    return this.syncs.progressOf(compositeId);
  }

  /**
   * Invalidates the cached files in scope and syncs them with the store, after telling the other instances to do
   * the same; `wait` answers when the sync here has finished.
   */
  async refresh(scope: SyncScope, wait: boolean): Promise<StoreRefreshOutcome> {
    const reach = this.announcer !== null && (await this.announcer.announce(scope)) ? 'cluster' : 'instance';
    const cachedFiles = this.inScope(scope).reduce(
      (sum, entry) => sum + TENANT_FILES.filter((name) => fs.existsSync(path.join(entry.dir, name))).length,
      0,
    );
    // a refresh is the operator's word that the objects may have changed: a broken mark is judged anew
    for (const entry of this.inScope(scope)) this.cache?.clearBroken(entry.compositeId);
    const sync = this.sync(scope);
    if (!wait) {
      const tenants = this.inScope(scope);
      return { status: 'started', invalidated: cachedFiles, tenants: tenants.length, ready: countReady(tenants), error: null, reach };
    }
    const ended = await settledWithin(sync, REFRESH_WAIT_MAX_MS);
    const tenants = this.inScope(scope);
    if (ended === undefined) {
      const error = `the sync goes on after ${REFRESH_WAIT_MAX_MS / 1000} s; store-status shows its progress`;
      return { status: 'started', invalidated: cachedFiles, tenants: tenants.length, ready: countReady(tenants), error, reach };
    }
    return { status: 'completed', invalidated: cachedFiles, tenants: tenants.length, ready: countReady(tenants), error: ended, reach };
  }

  /**
   * Stops the poll, cuts every request to the store in flight (downloads, listings, stats) and waits for the syncs
   * to settle, which they then do at once (shutdown). Called again, the same promise.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.pollTimer);
      this.objects.stop?.();
      await this.syncs.close();
      await Promise.allSettled([...this.running]);
      await this.polling;
    })();
    return this.closing;
  }

  listed(compositeId: string): ListedTenant | undefined {
    return this.listings.get(compositeId);
  }

  fetch(compositeId: string): Promise<void> {
    const listed = this.listings.get(compositeId);
    if (listed === undefined) return Promise.resolve();
    return this.syncs.sync(listed).then((outcome) => {
      // the store answers again after a listing failed: list it again now (shared with any listing that runs), so
      // that store-status and /health say what is wrong now, not at the next refresh or poll
      if (outcome.kind === 'installed' && this.lastError !== null && this.closing === null) void this.sync({ kind: 'all' });
    });
  }

  /**
   * Whether a sync of the tenant runs, or its files are those of a vanished tenant not yet deleted: the bounded
   * cache keeps counting those and never evicts them (an eviction would only drop their count, and a lease may still
   * read them); the store deletes them and drops their count together.
   */
  isBusy(compositeId: string): boolean {
    return this.syncs.isBusy(compositeId) || (this.leftovers.has(compositeId) && this.registry.get(compositeId) === undefined);
  }

  secondsLeft(compositeId: string): number | null {
    return this.syncs.secondsLeft(compositeId);
  }

  failureDetail(compositeId: string): string | null {
    return this.syncs.failureDetail(compositeId);
  }

  /** A sync of everything on the poll's schedule, unless the last one still runs. */
  private poll(): void {
    this.polling ??= this.sync({ kind: 'all' }).finally(() => {
      this.polling = null;
    });
  }

  /**
   * Lists the scope, drops tenants that vanished, syncs the listed tenants it keeps. Resolves with the store-level
   * error, if any. A sync asked for while another of the same prefix still lists waits for that listing to end and
   * then shares one new listing with every other sync asked for meanwhile: each sees the store as it was when it
   * was asked for or later, and any number of refreshes that arrive during one listing make one listing more.
   */
  private sync(scope: SyncScope, onListed?: (error: string | null) => void): Promise<string | null> {
    if (this.closing !== null) return Promise.resolve(SHUTTING_DOWN);
    const prefix = scopePrefix(this.options.prefix, scope);
    const listing = this.listingSyncs.get(prefix);
    if (listing === undefined || onListed !== undefined) return this.startSync(scope, prefix, onListed);
    let next = this.nextSyncs.get(prefix);
    if (next === undefined) {
      next = listing.listed.then(() => {
        this.nextSyncs.delete(prefix);
        return this.sync(scope);
      });
      this.nextSyncs.set(prefix, next);
    }
    return next;
  }

  private startSync(scope: SyncScope, prefix: string, onListed?: (error: string | null) => void): Promise<string | null> {
    let listed = false;
    let markListed: () => void = () => undefined;
    const listedOnce = new Promise<void>((resolve) => {
      markListed = resolve;
    });
    const job: Promise<string | null> = this.syncOnce(scope, prefix, () => {
      listed = true;
      markListed();
      if (this.listingSyncs.get(prefix)?.job === job) this.listingSyncs.delete(prefix);
    }, onListed)
      .catch((err: unknown) => {
        this.log.error({ err }, 'object store sync failed');
        return 'sync failed: the server could not bring the cache in step with the store';
      })
      .finally(() => {
        markListed();
        if (this.listingSyncs.get(prefix)?.job === job) this.listingSyncs.delete(prefix);
        this.running.delete(job);
      });
    if (!listed) this.listingSyncs.set(prefix, { job, listed: listedOnce });
    this.running.add(job);
    return job;
  }

  private async syncOnce(scope: SyncScope, prefix: string, done: () => void, onListed?: (error: string | null) => void): Promise<string | null> {
    const listing = await listPrefix(this.objects, prefix);
    done();
    this.lastError = listing.error;
    if (listing.error !== null) this.log.warn({ err: listing.detail }, 'object store sync failed; cached tenant files stay in service');
    if (listing.objects.length === 0 && !listing.complete) {
      onListed?.(listing.error);
      return listing.error;
    }
    this.reachedOnce = true;
    const listed = listedTenants(listing.objects, this.options.prefix);
    const syncs: Promise<unknown>[] = [];
    if (listing.complete) {
      this.sweepLeftovers();
      for (const entry of this.inScope(scope)) {
        if (listed.has(entry.compositeId)) continue;
        // a tenant still downloading leaves once its transfer has ended (this sync waits for it)
        if (this.syncs.isBusy(entry.compositeId)) syncs.push(this.forgetOnceSynced(entry));
        else this.forget(entry);
      }
    }
    for (const tenant of listed.values()) {
      if (!isInScope(scope, tenant.pack, tenant.slug)) continue;
      this.listings.set(tenant.compositeId, tenant);
      const entry = this.registry.ensureEntry(tenant.pack, tenant.slug);
      if (this.cache === null) syncs.push(this.syncs.sync(tenant));
      else if (this.cache.judgeSize(entry, tenant)) continue;
      else if (this.cache.judgeBroken(entry, tenant)) continue;
      else if (isInService(entry) || this.syncs.isBusy(tenant.compositeId)) syncs.push(this.syncs.sync(tenant));
    }
    onListed?.(listing.error);
    await Promise.all(syncs);
    return listing.error;
  }

  /**
   * Fetches the tenants of STORE_WARM in order while they fit beside what is cached, evicting nothing for them: a
   * tenant is fetched only when its files and the room its search index build claims first fit in the free bytes,
   * and its writes (download, index) take free room only until a request uses it (an index that does not fit then
   * is built on the tenant's first search).
   */
  private async warm(): Promise<void> {
    const cache = this.cache;
    if (cache === null) return;
    for (const id of warmOrder(this.options.cache.warm, [...this.listings.keys()])) {
      const entry = this.registry.get(id);
      const listed = this.listings.get(id);
      if (entry === undefined || listed === undefined || isInService(entry) || cache.isTooLarge(listed)) continue;
      const files = listed.kls.size + (listed.sis?.size ?? 0);
      if (files + indexRoomFor(listed.kls.size) > cache.budget.freeBytes) {
        this.log.warn({ tenant: id, freeBytes: cache.budget.freeBytes }, 'STORE_WARM: the cache is full; the warm tenants left are fetched on first use');
        return;
      }
      cache.warming(id);
      await this.syncs.sync(listed);
      if (this.syncs.stopped) return;
    }
  }

  /**
   * Forgets a tenant a complete listing did not show once its running sync has ended, unless a listing since has
   * shown it again (its listing changed) or another sync of it started meanwhile (then that one is waited for).
   */
  private async forgetOnceSynced(entry: TenantEntry): Promise<void> {
    const id = entry.compositeId;
    const seen = this.listings.get(id);
    if (seen === undefined) return;
    while (this.syncs.isBusy(id)) await this.syncs.sync(seen);
    if (this.closing === null && this.registry.get(id) === entry && this.listings.get(id) === seen) this.forget(entry);
  }

  /**
   * A tenant no longer in the store leaves the list at once (new requests answer 404); its cached files go
   * (app-database data stays) as soon as no request holds them: a running export or search keeps reading them, and
   * the next complete listing deletes them once it has ended.
   */
  private forget(entry: TenantEntry): void {
    this.registry.remove(entry.compositeId);
    this.listings.delete(entry.compositeId);
    this.log.info({ tenant: entry.compositeId }, 'tenant vanished from the object store');
    // an older leftover of the same folder is judged with this entry (it would count as held by its mere presence)
    this.leftovers.delete(entry.compositeId);
    if (this.isHeld(entry)) this.leftovers.set(entry.compositeId, entry);
    else this.removeFiles(entry);
  }

  /** Whether a request still reads the tenant's files: a lease of its handle, or a pin of the bounded cache. */
  private isHeld(entry: TenantEntry): boolean {
    return (entry.handle?.leaseCount ?? 0) > 0 || (this.cache !== null && !this.cache.canEvict(entry.compositeId));
  }

  private removeFiles(entry: TenantEntry): void {
    fs.rmSync(entry.dir, { recursive: true, force: true });
    this.cache?.forget(entry.compositeId);
  }

  /** Deletes the files of vanished tenants that nothing holds any more; a tenant back in the store keeps its folder. */
  private sweepLeftovers(): void {
    for (const [compositeId, entry] of [...this.leftovers]) {
      // out of the map while judged: a leftover counts as busy to the cache, whose checks isHeld asks
      this.leftovers.delete(compositeId);
      if (this.registry.get(compositeId) !== undefined) continue;
      if (this.isHeld(entry)) this.leftovers.set(compositeId, entry);
      else this.removeFiles(entry);
    }
  }

  private inScope(scope: SyncScope): TenantEntry[] {
    return this.registry.list().filter((entry) => isInScope(scope, entry.pack, entry.slug));
  }
}

/** The store-level error of a sync asked for once shutdown has begun: it lists nothing. */
const SHUTTING_DOWN = 'the server is shutting down';

const countReady = (entries: TenantEntry[]): number => entries.filter((e) => e.status === 'ready').length;

/**
 * Longest a refresh with `wait=true` waits for its sync: past it, the answer says `started` and the sync goes on.
 * Every request to the store has its own time limits; this bounds a sync of many slow but live downloads.
 */
const REFRESH_WAIT_MAX_MS = 60_000;

/** The job's result when it settles within `ms`, undefined otherwise (it runs on). */
function settledWithin<T>(job: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([job, timeout]).finally(() => clearTimeout(timer));
}
