import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { Problem, tenantUnavailable } from '../common/problems.js';
import type { Logger } from '../logger.js';
import type { Count } from '../metrics/metrics.js';
import { DEFAULT_TENANT_HANDLES_MAX, HandlePool } from './handle-pool.js';
import { KlsHandle, stampOf } from './kls-handle.js';
import { isReplaced, scanKlsDir } from './local-scan.js';
import { compositeIdOf, EVERY_TENANT, setTenantState, type TenantScope } from './tenants.js';
import { isInService, type FileProvider } from './file-provider.js';
import { currentClientGone, currentFetchAdmission } from './fetch-admission.js';
import { resolveTenant, withLeasedKls, type KlsLease, type TenantEntry, type TenantFileStat, type TenantInput, type Tenants } from './tenants.js';

/** Per-tenant state (docs/object-store.md, "Sync"). */
export const toMb = (bytes: number): number => Math.round((bytes / 1048576) * 100) / 100;
const RETRY_AFTER_SECONDS = 5;

/** Tenants found under KLS_DIR as `<pack>/<slug>/kls.sqlite`: resolution, leases and swaps. */
export class TenantRegistry implements Tenants {
  /** The registry itself sees every tenant; requests see it through a ScopedTenants of their caller. */
  readonly scope: TenantScope = EVERY_TENANT;
  private readonly entries = new Map<string, TenantEntry>();
  /** `entries` ordered by composite ID, made on the first list() after a tenant came or went. */
  private ordered: readonly TenantEntry[] | null = null;
  private readonly installedListeners: ((entry: TenantEntry) => void)[] = [];
  private readonly unloadedListeners: ((entry: TenantEntry) => void)[] = [];
  /** Store mode with a bounded cache: fetches a tenant's file on its first lease; null: every file is there or not. */
  private provider: FileProvider | null = null;
  /** Open connections over all tenants, bounded by TENANT_HANDLES_MAX (idle ones close, least recently used first). */
  private readonly pool: HandlePool;
  /** Tenants whose connection could not be opened again (status error until a lease succeeds). */
  private readonly unopenable = new Set<TenantEntry>();

  constructor(
    readonly klsDir: string,
    readonly source: 'local' | 'store',
    private readonly log: Logger,
    /** TENANT_HANDLES_MAX: open tenant connections beyond which idle ones are closed. */
    maxHandles: number = DEFAULT_TENANT_HANDLES_MAX,
    /** Counts the idle connections closed to stay within it. */
    closedCount?: Count,
  ) {
    this.pool = new HandlePool(maxHandles, closedCount);
  }

  /** Tenant connections open now (leased, idle, or draining after a swap). */
  get openHandles(): number {
    return this.pool.size;
  }

  /** Idle connections closed so far to stay within TENANT_HANDLES_MAX. */
  get evictedHandles(): number {
    return this.pool.evictions;
  }

  /**
   * Every known tenant, ordered by composite ID. The order is kept until a tenant comes or goes: sorting with
   * localeCompare on every call was a jumpbar tenant list's largest allocation.
   */
  list(): TenantEntry[] {
    this.ordered ??= [...this.entries.values()].sort((a, b) => a.compositeId.localeCompare(b.compositeId));
    return [...this.ordered];
  }

  /** The entry of `<pack>.<slug>`, if known (no validation: for code that already holds a composite ID). */
  get(compositeId: string): TenantEntry | undefined {
    return this.entries.get(compositeId);
  }

  /** Resolves a slug or composite ID: 400 malformed, 404 unknown, 409 ambiguous slug. */
  resolve(value: string, where?: TenantInput): TenantEntry {
    return resolveTenant(this, value, where);
  }

  /** Has `provider` put the file of a tenant that has none in service when it is leased (store mode, bounded cache). */
  provideFilesWith(provider: FileProvider): void {
    this.provider = provider;
  }

  /**
   * Leases the current connection of a tenant. A tenant without a file in service waits for the file provider
   * (store mode, bounded cache: the fetch, for a bounded time); without one, or when it fails, 503 with Retry-After.
   * A tenant whose file is in service is leased before this returns, with no turn of the event loop in between.
   */
  async lease(entry: TenantEntry): Promise<KlsLease> {
    const provider = this.provider;
    if (provider === null || isInService(entry)) return this.leaseNow(entry, provider === null ? 'untracked' : 'hit');
    // a request's fetch counts against its caller's limit (withFetchAdmission); the server's own do not
    const unpin = await provider.provide(entry, currentFetchAdmission(), currentClientGone());
    try {
      return this.leaseNow(entry, 'fetched');
    } finally {
      unpin();
    }
  }

  /** Leases a tenant whose file is in service now, fetching nothing (503 otherwise): for work the server starts itself. */
  leaseCached(entry: TenantEntry): KlsLease {
    return this.leaseNow(entry, 'untracked');
  }

  /**
   * Leases the current connection of a ready tenant; 503 with Retry-After when it has none yet. A connection
   * closed while idle is opened again on the same file and generation; when the path names another file by now,
   * that file is swapped in first (generation + 1), as the local scan or a download would have done.
   */
  private leaseNow(entry: TenantEntry, use: 'hit' | 'fetched' | 'untracked'): KlsLease {
    let handle = entry.handle;
    if (handle !== null && !handle.isOpen && !handle.isRetired) handle = this.revive(entry, handle);
    if (handle === null || handle.isRetired) {
      if (entry.status === 'error') {
        throw new Problem('tenant-unavailable', `tenant "${entry.compositeId}" has no usable database: ${entry.error ?? 'error'}`, { retryAfterSeconds: RETRY_AFTER_SECONDS * 6 });
      }
      throw tenantUnavailable(entry.compositeId, RETRY_AFTER_SECONDS);
    }
    let release: () => void;
    try {
      release = handle.lease();
    } catch (err) {
      this.markUnopenable(entry, err as Error);
      throw tenantUnavailable(entry.compositeId, RETRY_AFTER_SECONDS);
    }
    if (this.unopenable.delete(entry) && entry.status === 'error') {
      setTenantState(entry, 'ready', null);
    }
    const provider = this.provider;
    if (provider === null || use === 'untracked') return { db: handle.db, generation: handle.generation, entry, release };
    provider.used(entry, use === 'fetched');
    return {
      db: handle.db,
      generation: handle.generation,
      entry,
      release: () => {
        release();
        provider.idle(entry);
      },
    };
  }

  /** Runs `read` on a leased connection of the tenant named by `value`, releasing it afterwards. */
  withKls<T>(value: string, read: (db: Database.Database, entry: TenantEntry) => T | Promise<T>): Promise<T> {
    return withLeasedKls(this, value, read);
  }

  /**
   * Stats the tenant's file (no query); in local mode a replaced file is swapped in first. A tenant whose file is not
   * in the cache (store mode, bounded cache) is described by its file provider, from the store's listing.
   */
  statFile(entry: TenantEntry): TenantFileStat {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(entry.klsPath);
    } catch {
      const described = isInService(entry) ? null : this.provider?.describe(entry);
      if (described !== null && described !== undefined) return described;
      throw tenantUnavailable(entry.compositeId, RETRY_AFTER_SECONDS);
    }
    if (this.source === 'local' && isReplaced(entry, stat)) this.install(entry, stat);
    return { generation: entry.generation, mtime: stat.mtime.toISOString(), sizeMb: toMb(stat.size) };
  }

  /** Local mode: discovers tenants, swaps replaced files, drops tenants whose file vanished (local-scan.ts). */
  scanLocal(): void {
    scanKlsDir(this, this.log);
  }

  /** Adds (or returns) the entry for `<pack>.<slug>` in status pending. */
  ensureEntry(pack: string, slug: string): TenantEntry {
    const compositeId = compositeIdOf(pack, slug);
    let entry = this.entries.get(compositeId);
    if (entry === undefined) {
      const dir = path.join(this.klsDir, pack, slug);
      entry = {
        compositeId,
        pack,
        slug,
        dir,
        klsPath: path.join(dir, 'kls.sqlite'),
        displayName: slug,
        status: 'pending',
        error: null,
        hasSis: false,
        generation: 0,
        stamp: null,
        handle: null,
      };
      this.entries.set(compositeId, entry);
      this.ordered = null;
    }
    return entry;
  }

  /**
   * Swaps in the file now at entry.klsPath: opens it read-only, makes it current, bumps the generation and
   * retires the previous connection. A file that does not open leaves the previous one in service.
   */
  install(entry: TenantEntry, stat: fs.Stats = fs.statSync(entry.klsPath)): boolean {
    let handle: KlsHandle;
    try {
      handle = KlsHandle.open(entry.klsPath, entry.generation + 1, stat, this.pool);
    } catch (err) {
      setTenantState(entry, entry.status, `cannot open ${path.basename(entry.klsPath)}: ${(err as Error).message}`);
      entry.stamp = stampOf(stat);
      this.keepPrevious(entry);
      if (entry.handle === null) setTenantState(entry, 'error', entry.error);
      this.log.error({ tenant: entry.compositeId, err: entry.error }, 'tenant file rejected');
      return false;
    }
    const previous = entry.handle;
    entry.handle = handle;
    entry.generation = handle.generation;
    entry.stamp = stampOf(stat);
    // leased while read, so that the pool does not close it before its first use
    const release = handle.lease();
    try {
      entry.displayName = readDisplayName(handle.db) ?? entry.slug;
    } finally {
      release();
    }
    setTenantState(entry, 'ready', null);
    this.unopenable.delete(entry);
    previous?.retire();
    this.log.info({ tenant: entry.compositeId, generation: entry.generation }, 'tenant file in service');
    for (const listener of this.installedListeners) {
      try {
        listener(entry);
      } catch (err) {
        this.log.error({ tenant: entry.compositeId, err: (err as Error).message }, 'a listener of tenant swaps failed');
      }
    }
    return true;
  }

  /** Calls `listener` after each file is put in service (first file and every swap). */
  onInstalled(listener: (entry: TenantEntry) => void): void {
    this.installedListeners.push(listener);
  }

  /** Calls `listener` after a tenant's file is taken out of service and left to be deleted (unload), or the tenant is removed. */
  onUnloaded(listener: (entry: TenantEntry) => void): void {
    this.unloadedListeners.push(listener);
  }

  /**
   * Takes the tenant's file out of service, keeping the tenant (store mode, bounded cache: evicted). The caller
   * has made sure no lease holds it; its connection closes now, and the listeners close what else reads the folder.
   */
  unload(entry: TenantEntry): void {
    entry.handle?.retire();
    entry.handle = null;
    entry.stamp = null;
    setTenantState(entry, 'pending', null);
    this.unopenable.delete(entry);
    this.tellUnloaded(entry);
  }

  /**
   * Forgets a tenant (it left the store, or its file vanished from KLS_DIR); its connection closes once drained, and
   * the listeners of unload close what else reads its folder (its search index).
   */
  remove(compositeId: string): void {
    const entry = this.entries.get(compositeId);
    if (entry === undefined) return;
    this.entries.delete(compositeId);
    this.ordered = null;
    this.unopenable.delete(entry);
    entry.handle?.retire();
    this.tellUnloaded(entry);
    this.log.info({ tenant: compositeId }, 'tenant removed');
  }

  private tellUnloaded(entry: TenantEntry): void {
    for (const listener of this.unloadedListeners) {
      try {
        listener(entry);
      } catch (err) {
        this.log.error({ tenant: entry.compositeId, err: (err as Error).message }, 'a listener of unloaded tenants failed');
      }
    }
  }

  /** Closes every connection (shutdown). */
  close(): void {
    for (const entry of this.entries.values()) entry.handle?.retire();
    this.entries.clear();
    this.ordered = null;
    this.unopenable.clear();
  }

  /**
   * The tenant of a handle whose connection was closed while idle is asked for: the handle when the path still
   * names its file, else the file found there swapped in (null when it does not open: the old file is gone).
   * Local mode compares size, mtime and inode, as the scan does; store mode size and inode (a sync may set a
   * cached file's mtime without replacing it).
   */
  private revive(entry: TenantEntry, handle: KlsHandle): KlsHandle | null {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(entry.klsPath);
    } catch (err) {
      this.markUnopenable(entry, err as Error);
      throw tenantUnavailable(entry.compositeId, RETRY_AFTER_SECONDS);
    }
    const s = handle.stamp;
    const same = s.ino === stat.ino && s.size === stat.size && (this.source === 'store' || s.mtimeMs === stat.mtimeMs);
    if (same) return handle;
    this.log.info({ tenant: entry.compositeId, generation: handle.generation }, 'tenant file replaced while its connection was closed');
    this.install(entry, stat);
    return entry.handle;
  }

  /**
   * A replacement did not open: the generation in service stays. Its connection is then the only way to its file
   * (the path names the rejected one), so it is pinned open; one already closed cannot be reopened and is dropped.
   */
  private keepPrevious(entry: TenantEntry): void {
    const previous = entry.handle;
    if (previous === null) return;
    if (previous.isOpen) {
      previous.pinned = true;
      return;
    }
    previous.retire();
    entry.handle = null;
  }

  /** The tenant's file could not be opened again: status error (health degraded) until a lease succeeds. */
  private markUnopenable(entry: TenantEntry, err: Error): void {
    this.log.warn({ tenant: entry.compositeId, err: err.message }, 'tenant file could not be opened again');
    if (entry.status !== 'ready' && !this.unopenable.has(entry)) return;
    this.unopenable.add(entry);
    // a client reads this (store-status, the tenant's 503): a file-system error names a path and an errno, which
    // the log line above keeps
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === undefined ? err.message : code === 'ENOENT' ? 'the file is gone' : 'the file cannot be read';
    setTenantState(entry, 'error', `cannot open ${path.basename(entry.klsPath)} again: ${reason}`);
  }
}

function readDisplayName(db: Database.Database): string | null {
  try {
    const row = db.prepare("SELECT value FROM meta WHERE key = 'display_name'").get() as { value?: unknown } | undefined;
    return typeof row?.value === 'string' && row.value.trim() !== '' ? row.value : null;
  } catch {
    return null;
  }
}
