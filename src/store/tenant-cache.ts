import fs from 'node:fs';
import path from 'node:path';
import { Problem, tenantUnavailable } from '../common/problems.js';
import type { Logger } from '../logger.js';
import type { StoreCacheMetrics } from '../metrics/metrics.js';
import { isInService, type FileProvider } from '../tenants/file-provider.js';
import { toMb, type TenantRegistry } from '../tenants/registry.js';
import type { FetchAdmission } from '../tenants/fetch-admission.js';
import { setTenantState, type TenantEntry, type TenantFileStat } from '../tenants/tenants.js';
import { CacheBudget, type Evictor } from './cache-budget.js';
import { readManifestTime } from './cache-files.js';
import type { ListedTenant } from './layout.js';
import type { BuildRoom, SidecarSpace } from '../search/build-room.js';

/** Where a tenant stands in the bounded cache (the `cache` member of store-status with `include_cache=true`). */
export type CacheState = 'not-fetched' | 'fetching' | 'cached' | 'evicted' | 'too-large';

/** What the cache needs of the store: the last listing, and fetches that one tenant's requests share. */
export interface FetchSource {
  /** The tenant as the last listing showed it, undefined when it was not listed. */
  listed(compositeId: string): ListedTenant | undefined;
  /** Starts the tenant's fetch, or joins the one running; resolves when it has ended, put in service or not. */
  fetch(compositeId: string): Promise<void>;
  /** Whether a sync of the tenant (a fetch, a refresh's transfer) is running. */
  isBusy(compositeId: string): boolean;
  /** Seconds until the tenant's running transfer is expected to end, null when unknown. */
  secondsLeft(compositeId: string): number | null;
  /** For the log: the last failure of the tenant's sync with the store's own words (key, address, errno), null when none. */
  failureDetail(compositeId: string): string | null;
}

/** Retry-After of a fetch that failed (the store away, the disk full): the next request tries again. */
const RETRY_FAILED_FETCH_S = 5;
/** Retry-After of a tenant whose object failed its checks: fetched again only once the store holds another one. */
const RETRY_BROKEN_OBJECT_S = 30;

/**
 * Bytes of the regular files in a tenant's folder (its files, search indexes, manifest, temporary files); 0 when it
 * has none (the folder does not exist), null when the folder cannot be read (what it holds is unknown).
 */
export function folderBytes(dir: string): number | null {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 0 : null;
  }
  let total = 0;
  for (const name of names) {
    if (!name.isFile()) continue;
    try {
      total += fs.statSync(path.join(dir, name.name)).size;
    } catch {
      // deleted since the listing of the folder
    }
  }
  return total;
}

/**
 * The bounded cache of store mode (STORE_CACHE_MAX_MB): puts a tenant's file in service on its first lease through
 * the store's fetch (requests for one tenant share it and wait at most `fetchWaitMs`), and evicts the least
 * frequently used idle tenants (CacheBudget), closing their files and deleting their folders, when a write needs room. A tenant is never
 * evicted while a lease holds its file, a sync of it runs, or a request waits for it (pinned).
 */
export class TenantCache implements FileProvider, Evictor, SidecarSpace {
  readonly budget: CacheBudget;
  /** Tenants evicted since the start. */
  evictions = 0;
  private readonly pins = new Map<string, number>();
  private readonly evicted = new Set<string>();
  /** Tenants whose listed files are larger than the whole cache (status error until they fit). */
  private readonly tooLarge = new Set<string>();
  /**
   * The objects of a tenant that failed their checks (not SQLite, not a KLS file, incomplete), by the ETags of
   * both its files: not fetched again until either changes or a refresh names the tenant.
   */
  private readonly broken = new Map<string, { objects: string; error: string }>();
  private readonly promotedListeners: ((compositeId: string) => void)[] = [];
  /** Admissions of a fetch under way per tenant (admitOnce): open once the fetch has started or was refused. */
  private readonly admissions = new Map<string, Promise<void>>();

  constructor(
    private readonly registry: TenantRegistry,
    private readonly source: FetchSource,
    maxBytes: number,
    private readonly fetchWaitMs: number,
    private readonly metrics: StoreCacheMetrics,
    private readonly log: Logger,
  ) {
    this.budget = new CacheBudget(maxBytes, this);
    metrics.watch(() => ({ usedBytes: this.budget.usedBytes, reservedBytes: this.budget.reservedBytes, maxBytes }));
  }

  /**
   * Counts the tenants cached at start (in service after the scan of KLS_DIR), the most recently fetched last, and
   * evicts the oldest while they hold more than the bound (a bound lowered since the last run).
   */
  adoptCached(): void {
    const cached = this.registry.list().filter(isInService);
    cached.sort((a, b) => readManifestTime(a.dir) - readManifestTime(b.dir));
    for (const entry of cached) this.settle(entry);
    for (const id of this.budget.tenants()) {
      if (this.budget.freeBytes >= 0) break;
      if (this.canEvict(id)) this.evict(id);
    }
  }

  /** The tenant's state in the cache. */
  stateOf(entry: TenantEntry): CacheState {
    const listed = this.source.listed(entry.compositeId);
    if (listed !== undefined && this.isTooLarge(listed)) return 'too-large';
    if (isInService(entry)) return 'cached';
    if (this.source.isBusy(entry.compositeId)) return 'fetching';
    return this.evicted.has(entry.compositeId) ? 'evicted' : 'not-fetched';
  }

  /** Whether the tenant's listed files alone are larger than the whole cache. */
  isTooLarge(listed: ListedTenant): boolean {
    return listed.kls.size + (listed.sis?.size ?? 0) > this.budget.maxBytes;
  }

  /**
   * Marks a tenant whose listed files are larger than the whole cache as status `error` with the reason (a file in
   * service stays, not updated), or takes the mark away once they fit; true when too large.
   */
  judgeSize(entry: TenantEntry, listed: ListedTenant): boolean {
    if (this.isTooLarge(listed)) {
      this.tooLarge.add(entry.compositeId);
      setTenantState(entry, 'error', this.tooLargeMessage(listed));
      return true;
    }
    if (this.tooLarge.delete(entry.compositeId)) {
      setTenantState(entry, isInService(entry) ? 'ready' : 'pending', null);
    }
    return false;
  }

  /** The message a tenant larger than the cache gets (store-status `error`, the detail of its 503). */
  tooLargeMessage(listed: ListedTenant): string {
    const bytes = listed.kls.size + (listed.sis?.size ?? 0);
    return `the files of tenant "${listed.compositeId}" (${toMb(bytes)} MB) are larger than the whole cache (STORE_CACHE_MAX_MB=${toMb(this.budget.maxBytes)}): it is never fetched`;
  }

  async provide(entry: TenantEntry, admitFetch?: FetchAdmission, clientGone?: AbortSignal): Promise<() => void> {
    const id = entry.compositeId;
    const listed = this.source.listed(id);
    if (listed === undefined) throw tenantUnavailable(id, RETRY_FAILED_FETCH_S);
    if (this.isTooLarge(listed)) throw new Problem('tenant-too-large', this.tooLargeMessage(listed));
    const broken = this.brokenError(listed);
    if (broken !== null) throw unusable(id, broken, RETRY_BROKEN_OBJECT_S, this.source.failureDetail(id));
    if (isGone(clientGone)) throw abandoned(id);
    // a fetch this request starts counts against its caller's limit; one it joins costs nothing more
    const started = admitFetch === undefined ? undefined : await this.admitOnce(entry, admitFetch, clientGone);
    let fetching: Promise<void>;
    try {
      if (isInService(entry)) return () => undefined;
      this.metrics.misses.inc();
      this.pin(id);
      fetching = this.source.fetch(id);
    } finally {
      started?.();
    }
    let pinned = true;
    try {
      const ended = await settledWithin(fetching, this.fetchWaitMs, clientGone);
      if (isGone(clientGone)) throw abandoned(id);
      if (!ended) throw tenantUnavailable(id, Math.min(60, Math.max(1, this.source.secondsLeft(id) ?? RETRY_FAILED_FETCH_S)));
      // the fetch may have listed the tenant again (its object changed): grown past the bound, it says so now
      const now = this.source.listed(id) ?? listed;
      if (!isInService(entry) && this.isTooLarge(now)) throw new Problem('tenant-too-large', this.tooLargeMessage(now));
      if (!isInService(entry)) throw this.fetchFailure(entry, now);
      pinned = false;
      return () => this.unpin(id);
    } finally {
      if (pinned) this.unpin(id);
    }
  }

  used(entry: TenantEntry, fetched: boolean): void {
    const id = entry.compositeId;
    const wasReused = this.budget.isReused(id);
    this.budget.welcome(id);
    this.budget.touch(id, !fetched);
    if (!wasReused && this.budget.isReused(id)) {
      for (const listener of this.promotedListeners) listener(id);
    }
    if (!fetched) this.metrics.hits.inc();
  }

  idle(): void {
    this.budget.retryWaiting();
  }

  describe(entry: TenantEntry): TenantFileStat | null {
    const listed = this.source.listed(entry.compositeId);
    if (listed?.kls.lastModified === undefined) return null;
    return { generation: entry.generation, mtime: listed.kls.lastModified.toISOString(), sizeMb: toMb(listed.kls.size) };
  }

  canEvict(compositeId: string): boolean {
    if ((this.pins.get(compositeId) ?? 0) > 0 || this.source.isBusy(compositeId)) return false;
    const entry = this.registry.get(compositeId);
    return entry === undefined || (entry.handle?.leaseCount ?? 0) === 0;
  }

  evict(compositeId: string): void {
    const entry = this.registry.get(compositeId);
    if (entry === undefined) this.budget.drop(compositeId);
    else {
      this.registry.unload(entry);
      // a tenant whose objects failed their checks stays an error out of the cache too
      const listed = this.source.listed(compositeId);
      if (listed !== undefined) this.judgeBroken(entry, listed);
      try {
        fs.rmSync(entry.dir, { recursive: true, force: true });
      } catch (err) {
        this.log.error({ tenant: compositeId, err: (err as Error).message }, 'the files of an evicted tenant could not be deleted; they stay counted');
      }
      this.evicted.add(compositeId);
      this.settle(entry);
    }
    this.evictions += 1;
    this.metrics.evictions.inc();
    this.log.info({ tenant: compositeId, usedBytes: this.budget.usedBytes }, 'tenant evicted from the store cache');
  }

  /**
   * Room for a search index build. An index that cannot fit beside its tenant's files in the whole cache (not only
   * now) throws `tenant-too-large` (no Retry-After), at its first claim or when it grows: a 503 asking to retry
   * later would loop, as it would for a tenant whose files alone do not fit.
   */
  claim(compositeId: string, bytes: number): BuildRoom | null {
    this.judgeIndexRoom(compositeId, bytes);
    const room = this.budget.tryReserve(compositeId, bytes);
    if (room === null) return null;
    return {
      get bytes() {
        return room.bytes;
      },
      grow: (to) => {
        if (room.grow(to)) return true;
        this.judgeIndexRoom(compositeId, to);
        return false;
      },
      release: () => room.release(),
    };
  }

  /**
   * Throws `tenant-too-large` when an index of `bytes` and the tenant's listed files are more than the whole cache
   * (the files as listed, not the folder's count, which holds the index of the generation before until this one is built).
   */
  private judgeIndexRoom(compositeId: string, bytes: number): void {
    const listed = this.source.listed(compositeId);
    if (listed === undefined) return;
    const files = listed.kls.size + (listed.sis?.size ?? 0);
    if (files + bytes <= this.budget.maxBytes) return;
    throw new Problem(
      'tenant-too-large',
      `the search index of tenant "${compositeId}" does not fit beside its files (${toMb(files)} MB) in the whole cache (STORE_CACHE_MAX_MB=${toMb(this.budget.maxBytes)}): it cannot be searched with this bound`,
    );
  }

  changed(compositeId: string): void {
    const entry = this.registry.get(compositeId);
    if (entry !== undefined) this.settle(entry);
  }

  /**
   * Counts the tenant's folder again, after its files changed (a download ended, an index was built, files deleted).
   * A folder that cannot be read keeps its count (at least its listed files): it is never counted as empty.
   */
  settle(entry: TenantEntry): void {
    let bytes = folderBytes(entry.dir);
    if (bytes === null) {
      const listed = this.source.listed(entry.compositeId);
      bytes = Math.max(this.budget.chargeOf(entry.compositeId) ?? 0, listed === undefined ? 0 : listed.kls.size + (listed.sis?.size ?? 0));
      this.log.warn({ tenant: entry.compositeId, bytes }, 'the folder of a cached tenant cannot be read; its last count stays');
    }
    if (bytes === 0 && !isInService(entry)) this.budget.drop(entry.compositeId);
    else this.budget.settle(entry.compositeId, bytes);
    if (isInService(entry)) this.evicted.delete(entry.compositeId);
  }

  /**
   * Whether the tenant's search index should be built ahead of its first search: a tenant in steady use (read again
   * since it was fetched) or warmed; not one fetched for a single request, so that a scan of tenants read once does
   * not build an index for each (a search of such a tenant builds it, and waits for it).
   */
  wantsIndexAhead(compositeId: string): boolean {
    return this.budget.isReused(compositeId) || this.budget.isGuest(compositeId);
  }

  /** Calls `listener` when a tenant is read again while cached (the first time since it was fetched). */
  onPromoted(listener: (compositeId: string) => void): void {
    this.promotedListeners.push(listener);
  }

  /** The objects of a tenant failed their checks (`error`): not fetched again until the store holds another one of either file. */
  markBroken(listed: ListedTenant, error: string): void {
    this.broken.set(listed.compositeId, { objects: objectsKey(listed), error });
  }

  /** Takes a tenant's broken mark away (a refresh names it): its next use fetches it again. */
  clearBroken(compositeId: string): void {
    this.broken.delete(compositeId);
  }

  /** Why the tenant's listed objects cannot be used, when they are the ones that failed their checks; else null. */
  brokenError(listed: ListedTenant): string | null {
    const broken = this.broken.get(listed.compositeId);
    return broken !== undefined && broken.objects === objectsKey(listed) ? broken.error : null;
  }

  /**
   * After a listing: a tenant whose listed objects failed their checks is status `error` with the reason (true);
   * a tenant out of the cache whose last fetch failed for another reason (the store away, the disk full) is
   * `pending` again, its failure past now that the store answers (false).
   */
  judgeBroken(entry: TenantEntry, listed: ListedTenant): boolean {
    const error = this.brokenError(listed);
    if (error !== null) {
      setTenantState(entry, 'error', error);
      return true;
    }
    if (!isInService(entry) && entry.status === 'error' && !this.tooLarge.has(entry.compositeId) && !this.source.isBusy(entry.compositeId)) {
      setTenantState(entry, 'pending', null);
    }
    return false;
  }

  /** A tenant fetched ahead of any use (STORE_WARM): its download and search index take free room only. */
  warming(compositeId: string): void {
    this.budget.admitAsGuest(compositeId);
  }

  /** Forgets a tenant that left the store (its folder is deleted by the store). */
  forget(compositeId: string): void {
    this.budget.forget(compositeId);
    this.tooLarge.delete(compositeId);
    this.evicted.delete(compositeId);
    this.broken.delete(compositeId);
  }

  /**
   * Charges the caller one fetch of the tenant, unless it is in service or its fetch runs (joined for free). An
   * admission takes time (a round trip to the app database with shared limits): requests that arrive meanwhile wait
   * for it rather than charge their callers for the same fetch, and join the fetch it lets start; after a refusal
   * each asks for its own. Resolves with the function to call once the fetch has started (or was not needed),
   * undefined when no admission was needed; throws the refusal (429).
   */
  private async admitOnce(entry: TenantEntry, admitFetch: FetchAdmission, clientGone: AbortSignal | undefined): Promise<(() => void) | undefined> {
    const id = entry.compositeId;
    for (;;) {
      if (isInService(entry) || this.source.isBusy(id)) return undefined;
      const running = this.admissions.get(id);
      if (running === undefined) break;
      await running;
    }
    // a client gone by now is charged nothing and starts no fetch
    if (isGone(clientGone)) throw abandoned(id);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    this.admissions.set(id, gate);
    const started = (): void => {
      if (this.admissions.get(id) === gate) this.admissions.delete(id);
      open();
    };
    try {
      await admitFetch();
    } catch (err) {
      started();
      throw err;
    }
    return started;
  }

  private pin(compositeId: string): void {
    this.pins.set(compositeId, (this.pins.get(compositeId) ?? 0) + 1);
  }

  private unpin(compositeId: string): void {
    const left = (this.pins.get(compositeId) ?? 1) - 1;
    if (left > 0) this.pins.set(compositeId, left);
    else this.pins.delete(compositeId);
    if (left <= 0) this.budget.retryWaiting();
  }

  private fetchFailure(entry: TenantEntry, listed: ListedTenant): Problem {
    const cause = this.source.failureDetail(entry.compositeId);
    const broken = this.brokenError(listed);
    if (broken !== null) return unusable(entry.compositeId, broken, RETRY_BROKEN_OBJECT_S, cause);
    return unusable(entry.compositeId, entry.error ?? 'the fetch failed', RETRY_FAILED_FETCH_S, cause);
  }
}

/** The ETags of a tenant's listed files, as one key. */
const objectsKey = (listed: ListedTenant): string => `${listed.kls.etag}/${listed.sis?.etag ?? ''}`;

/**
 * 503 with Retry-After for a tenant whose fetch failed: `reason` in words for the client, `cause` (the store's
 * address, the key, the errno) for the log line of the request only.
 */
const unusable = (compositeId: string, reason: string, retryAfterSeconds: number, cause: string | null): Problem =>
  new Problem('tenant-unavailable', `tenant "${compositeId}" could not be fetched into the cache: ${reason}`, {
    retryAfterSeconds,
    ...(cause === null ? {} : { cause }),
  });

/** Whether `job` settles within `ms`, false as soon as `stop` aborts, or at once when it has (it runs on either way). */
export function settledWithin(job: Promise<void>, ms: number, stop?: AbortSignal): Promise<boolean> {
  // a client that left during the fetch's admission (an await) has aborted already: no abort event comes
  if (stop?.aborted === true) return Promise.resolve(false);
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    onStop = () => resolve(false);
    stop?.addEventListener('abort', onStop, { once: true });
  });
  return Promise.race([job.then(() => true, () => true), timeout]).finally(() => {
    clearTimeout(timer);
    stop?.removeEventListener('abort', onStop!);
  });
}

/** Whether the request's client has gone (read each time: it changes across awaits). */
const isGone = (clientGone: AbortSignal | undefined): boolean => clientGone?.aborted === true;

/**
 * The request's client has gone while its tenant was not cached: it stops waiting (and starts no fetch), its pin
 * ends. The answer reaches no one; 503 is what the operation declares for a tenant not there in time.
 */
const abandoned = (compositeId: string): Problem =>
  new Problem('tenant-unavailable', `the client closed the request while tenant "${compositeId}" was not in the cache`, { retryAfterSeconds: RETRY_FAILED_FETCH_S, clientLeft: true });
