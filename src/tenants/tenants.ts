import type Database from 'better-sqlite3';
import { Problem, invalidRequest } from '../common/problems.js';
import type { FileStamp, KlsHandle } from './kls-handle.js';

// The tenants as a request sees them: how a tenant is named (a slug or `<pack>.<slug>`), the Tenants port with its
// resolution and leases, one caller's view of it (ScopedTenants), and the scopes of a token's tenants claim.

/** A slug or pack name; a composite tenant ID is `<pack>.<slug>`. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** A parsed tenant value: a bare slug, or `<pack>.<slug>`. */
export type TenantRef = { kind: 'slug'; slug: string } | { kind: 'composite'; pack: string; slug: string };

/** Parses a tenant value; returns null when it is neither a slug nor a composite ID. */
export function parseTenantRef(value: string): TenantRef | null {
  const parts = value.split('.');
  if (parts.length === 1 && SLUG_PATTERN.test(value)) return { kind: 'slug', slug: value };
  if (parts.length === 2 && SLUG_PATTERN.test(parts[0]!) && SLUG_PATTERN.test(parts[1]!)) {
    return { kind: 'composite', pack: parts[0]!, slug: parts[1]! };
  }
  return null;
}

/** `<pack>.<slug>` */
export const compositeIdOf = (pack: string, slug: string): string => `${pack}.${slug}`;

export type TenantStatus = 'pending' | 'downloading' | 'ready' | 'error';

/** One tenant as the server knows it. */
export interface TenantEntry {
  readonly compositeId: string;
  readonly pack: string;
  readonly slug: string;
  readonly dir: string;
  readonly klsPath: string;
  displayName: string;
  /** Written through `setTenantState` only. */
  readonly status: TenantStatus;
  /** Why the tenant's file is not (or not the newest) in service, for clients; written through `setTenantState` only. */
  readonly error: string | null;
  hasSis: boolean;
  /** In-memory counter: 1 after the first file, +1 on each swap of kls.sqlite (not when a closed connection reopens). */
  generation: number;
  /** The file last seen at klsPath (in service, or rejected). */
  stamp: FileStamp | null;
  /** The generation in service; its connection may be closed while idle (see TENANT_HANDLES_MAX). */
  handle: KlsHandle | null;
}

/**
 * The one writer of a tenant's status and error (the registry as it opens files, the store as it downloads and
 * judges them): a status is always written with the error that goes with it.
 */
export function setTenantState(entry: TenantEntry, status: TenantStatus, error: string | null): void {
  const state = entry as { status: TenantStatus; error: string | null };
  state.status = status;
  state.error = error;
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
 * The 404 of a tenant that does not exist or is outside the caller's scope (one detail for both), naming where the
 * caller's tenants are listed. `value` is a parsed tenant reference: at most 127 characters.
 */
const unknownTenant = (value: string): Problem =>
  new Problem('tenant-not-found', `unknown tenant "${value}"; GET /api/jumpbar?mode=tenants lists the tenants you may use`);

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
    if (entry === undefined) throw unknownTenant(value);
    return entry;
  }
  const matches = among.list().filter((e) => e.slug === ref.slug);
  if (matches.length === 0) throw unknownTenant(value);
  if (matches.length > 1) {
    const ids = matches.map((e) => e.compositeId).join(', ');
    throw new Problem('ambiguous-tenant', `tenant slug "${value}" is in several packs; use one of: ${ids}`);
  }
  return matches[0]!;
}

/** `withKls` in terms of resolve and lease. */
export function withLeasedKls<T>(
  tenants: Pick<Tenants, 'resolve' | 'lease'>,
  value: string,
  read: (db: Database.Database, entry: TenantEntry) => T | Promise<T>,
): Promise<T> {
  return readLeased(tenants, tenants.resolve(value), read);
}

/** Runs `read` on a leased connection of the resolved tenant `entry`, releasing it afterwards (503 while it has none). */
export async function readLeased<T>(tenants: Pick<Tenants, 'lease'>, entry: TenantEntry, read: (db: Database.Database, entry: TenantEntry) => T | Promise<T>): Promise<T> {
  const lease = await tenants.lease(entry);
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
      if (err instanceof Problem && err.code === 'tenant-not-found' && !this.scope.everything) this.outsideScope = this.existingOutside(value);
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

/** Which tenants a caller may see: every tenant, whole packs, and single tenants by composite ID. */
export interface TenantScope {
  /** True for `*`: every tenant, present and future. */
  readonly everything: boolean;
  /** True when the tenant `<pack>.<slug>` is in scope. */
  includes(pack: string, slug: string): boolean;
  /** True when the whole pack is in scope (`*` or `<pack>.*`), tenants the server does not know yet included. */
  coversPack(pack: string): boolean;
  /** The entries the scope was made of, normalised (`*`, `ost.*`, `ost.kantonsspital`), sorted. */
  readonly entries: readonly string[];
}

/** The scope of a caller that may see every tenant (`AUTH_MODE=none`, or `*` in the claim). */
export const EVERY_TENANT: TenantScope = Object.freeze({
  everything: true,
  includes: () => true,
  coversPack: () => true,
  entries: Object.freeze(['*']),
});

/**
 * Builds a scope from the entries of a tenants claim: `*`, `<pack>.*` or `<pack>.<slug>`. Entries of any other
 * form (a bare slug, which would be ambiguous; other wildcards; non-strings) grant nothing and are returned as
 * `ignored`, so the caller of this function can log them.
 */
export function tenantScopeOf(claim: readonly unknown[]): { scope: TenantScope; ignored: string[] } {
  const packs = new Set<string>();
  const tenants = new Set<string>();
  const ignored: string[] = [];
  let everything = false;
  for (const value of claim) {
    if (typeof value !== 'string') {
      ignored.push(String(JSON.stringify(value)).slice(0, 80));
      continue;
    }
    const parts = value.split('.');
    if (value === '*') everything = true;
    else if (parts.length === 2 && SLUG_PATTERN.test(parts[0]!) && parts[1] === '*') packs.add(parts[0]!);
    else if (parts.length === 2 && SLUG_PATTERN.test(parts[0]!) && SLUG_PATTERN.test(parts[1]!)) tenants.add(value);
    else ignored.push(value.slice(0, 80));
  }
  if (everything) return { scope: EVERY_TENANT, ignored };
  const entries = Object.freeze([...[...packs].map((p) => `${p}.*`), ...tenants].sort());
  const scope: TenantScope = Object.freeze({
    everything: false,
    includes: (pack: string, slug: string) => packs.has(pack) || tenants.has(`${pack}.${slug}`),
    coversPack: (pack: string) => packs.has(pack),
    entries,
  });
  return { scope, ignored };
}
