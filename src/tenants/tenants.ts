import type Database from 'better-sqlite3';
import { HttpProblem, invalidRequest } from '../http/errors.js';
import type { FileStamp, KlsHandle } from './kls-handle.js';
import { compositeIdOf, parseTenantRef } from './tenant-ref.js';
import type { TenantScope } from './tenant-scope.js';

export type TenantStatus = 'pending' | 'downloading' | 'ready' | 'error';

/** One tenant as the server knows it. */
export interface TenantEntry {
  readonly compositeId: string;
  readonly pack: string;
  readonly slug: string;
  readonly dir: string;
  readonly klsPath: string;
  displayName: string;
  status: TenantStatus;
  error: string | null;
  hasSis: boolean;
  /** In-memory counter: 1 after the first file, +1 on each swap of kls.sqlite (not when a closed connection reopens). */
  generation: number;
  /** The file last seen at klsPath (in service, or rejected). */
  stamp: FileStamp | null;
  /** The generation in service; its connection may be closed while idle (see TENANT_HANDLES_MAX). */
  handle: KlsHandle | null;
}

/** File facts served by db-status. */
export interface TenantFileStat {
  generation: number;
  mtime: string;
  sizeMb: number;
}

/** A leased read-only connection; call release() when done (a later swap closes it then). */
export interface KlsLease {
  db: Database.Database;
  generation: number;
  entry: TenantEntry;
  release: () => void;
}

/** Where a tenant value came from, for the 400 it gets when malformed. */
export type TenantInput = { in: 'path' | 'query' | 'body'; name: string };

/** The tenants a request may use: resolution, leases of their files and file stats, within one scope. */
export interface Tenants {
  readonly source: 'local' | 'store';
  /** The tenants this view may show; the registry's scope is every tenant. */
  readonly scope: TenantScope;
  /** Every tenant in scope, ordered by composite ID. */
  list(): TenantEntry[];
  /** The entry of `<pack>.<slug>` when it is known and in scope. */
  get(compositeId: string): TenantEntry | undefined;
  /** Resolves a slug or composite ID among the tenants in scope: 400 malformed, 404 unknown, 409 ambiguous slug. */
  resolve(value: string, where?: TenantInput): TenantEntry;
  /** Leases the current connection of a resolved tenant, its file fetched first when not cached; 503 with Retry-After when it has none in time. */
  lease(entry: TenantEntry): Promise<KlsLease>;
  /** Runs `read` on a leased connection of the tenant named by `value`, releasing it afterwards. */
  withKls<T>(value: string, read: (db: Database.Database, entry: TenantEntry) => T | Promise<T>): Promise<T>;
  /** Stats a resolved tenant's file (no query). */
  statFile(entry: TenantEntry): TenantFileStat;
}

const PATH_TENANT: TenantInput = { in: 'path', name: 'tenant' };

/**
 * Resolution over the tenants of `among` (its list and get): a composite ID must be known, a slug must be
 * known in exactly one pack. An unknown tenant is 404 with the same detail whatever the reason.
 */
export function resolveTenant(among: Pick<Tenants, 'list' | 'get'>, value: string, where: TenantInput = PATH_TENANT): TenantEntry {
  const ref = parseTenantRef(value);
  if (ref === null) {
    throw invalidRequest([{ ...where, message: 'must be a tenant slug or a <pack>.<slug> composite ID' }]);
  }
  if (ref.kind === 'composite') {
    const entry = among.get(compositeIdOf(ref.pack, ref.slug));
    if (entry === undefined) throw new HttpProblem('tenant-not-found', `unknown tenant "${value}"`);
    return entry;
  }
  const matches = among.list().filter((e) => e.slug === ref.slug);
  if (matches.length === 0) throw new HttpProblem('tenant-not-found', `unknown tenant "${value}"`);
  if (matches.length > 1) {
    const ids = matches.map((e) => e.compositeId).join(', ');
    throw new HttpProblem('ambiguous-tenant', `tenant slug "${value}" is in several packs; use one of: ${ids}`);
  }
  return matches[0]!;
}

/** `withKls` in terms of resolve and lease. */
export async function withLeasedKls<T>(
  tenants: Pick<Tenants, 'resolve' | 'lease'>,
  value: string,
  read: (db: Database.Database, entry: TenantEntry) => T | Promise<T>,
): Promise<T> {
  const lease = await tenants.lease(tenants.resolve(value));
  try {
    return await read(lease.db, lease.entry);
  } finally {
    lease.release();
  }
}

/**
 * One request's view of the tenants: only those in its caller's scope exist. A tenant outside the scope is
 * answered exactly like one that does not exist (404, same detail), and a slug is judged ambiguous only among
 * the tenants in scope. It also records what the request resolved, for the audit line.
 */
export class ScopedTenants implements Tenants {
  /** Composite IDs of the tenants this request resolved, in order. */
  readonly resolved: string[] = [];
  /** The composite ID of a tenant the request named that exists but is outside the scope (answered 404). */
  outsideScope: string | null = null;

  constructor(
    private readonly all: Tenants,
    readonly scope: TenantScope,
  ) {}

  get source(): 'local' | 'store' {
    return this.all.source;
  }

  list(): TenantEntry[] {
    const every = this.all.list();
    return this.scope.everything ? every : every.filter((e) => this.scope.includes(e.pack, e.slug));
  }

  get(compositeId: string): TenantEntry | undefined {
    const entry = this.all.get(compositeId);
    return entry !== undefined && this.scope.includes(entry.pack, entry.slug) ? entry : undefined;
  }

  resolve(value: string, where?: TenantInput): TenantEntry {
    let entry: TenantEntry;
    try {
      entry = resolveTenant(this, value, where);
    } catch (err) {
      if (err instanceof HttpProblem && err.code === 'tenant-not-found' && !this.scope.everything) this.outsideScope = this.existingOutside(value);
      throw err;
    }
    if (!this.resolved.includes(entry.compositeId)) this.resolved.push(entry.compositeId);
    return entry;
  }

  lease(entry: TenantEntry): Promise<KlsLease> {
    return this.all.lease(entry);
  }

  withKls<T>(value: string, read: (db: Database.Database, entry: TenantEntry) => T | Promise<T>): Promise<T> {
    return withLeasedKls(this, value, read);
  }

  statFile(entry: TenantEntry): TenantFileStat {
    return this.all.statFile(entry);
  }

  /** The tenant(s) `value` names among all tenants, when the scope hid them; null when none exists. */
  private existingOutside(value: string): string | null {
    const ref = parseTenantRef(value);
    if (ref === null) return null;
    const named = ref.kind === 'composite' ? [this.all.get(compositeIdOf(ref.pack, ref.slug))] : this.all.list().filter((e) => e.slug === ref.slug);
    const ids = named.filter((e): e is TenantEntry => e !== undefined).map((e) => e.compositeId);
    return ids.length === 0 ? null : ids.join(', ');
  }
}
