import { SLUG_PATTERN, compositeIdOf } from '../tenants/tenants.js';
import type { StoredObject } from './object-store.js';

/** The two files of a tenant (docs/object-store.md); `kls.sqlite` is required, `sis.sqlite` optional. */
export const TENANT_FILES = ['kls.sqlite', 'sis.sqlite'] as const;
export type TenantFileName = (typeof TENANT_FILES)[number];

/** A tenant as listed in the store: `<prefix><pack>/<slug>/kls.sqlite` and maybe `.../sis.sqlite`. */
export interface ListedTenant {
  compositeId: string;
  pack: string;
  slug: string;
  kls: StoredObject;
  sis: StoredObject | null;
}

/** What a sync covers. */
export type SyncScope = { kind: 'all' } | { kind: 'pack'; pack: string } | { kind: 'tenant'; pack: string; slug: string };

/** The key prefix to list for `scope` (pack and slug end in `/`, so `ost/` never matches `ost2/`). */
export function scopePrefix(prefix: string, scope: SyncScope): string {
  if (scope.kind === 'pack') return `${prefix}${scope.pack}/`;
  if (scope.kind === 'tenant') return `${prefix}${scope.pack}/${scope.slug}/`;
  return prefix;
}

/** Whether the tenant `<pack>.<slug>` lies in `scope`. */
export function isInScope(scope: SyncScope, pack: string, slug: string): boolean {
  if (scope.kind === 'pack') return pack === scope.pack;
  if (scope.kind === 'tenant') return pack === scope.pack && slug === scope.slug;
  return true;
}

/**
 * Groups listed objects into tenants. Keys that do not have the layout, or whose pack or slug break the
 * slug pattern, are ignored (they never reach a file path); a tenant without `kls.sqlite` is ignored.
 */
export function listedTenants(objects: readonly StoredObject[], prefix: string): Map<string, ListedTenant> {
  const files = new Map<string, { pack: string; slug: string; kls?: StoredObject; sis?: StoredObject }>();
  for (const object of objects) {
    if (!object.key.startsWith(prefix)) continue;
    const parts = object.key.slice(prefix.length).split('/');
    if (parts.length !== 3) continue;
    const [pack, slug, name] = parts as [string, string, string];
    if (!SLUG_PATTERN.test(pack) || !SLUG_PATTERN.test(slug) || !(TENANT_FILES as readonly string[]).includes(name)) continue;
    const id = compositeIdOf(pack, slug);
    const tenant = files.get(id) ?? { pack, slug };
    if (name === 'kls.sqlite') tenant.kls = object;
    else tenant.sis = object;
    files.set(id, tenant);
  }
  const tenants = new Map<string, ListedTenant>();
  for (const [compositeId, t] of files) {
    if (t.kls === undefined) continue;
    tenants.set(compositeId, { compositeId, pack: t.pack, slug: t.slug, kls: t.kls, sis: t.sis ?? null });
  }
  return tenants;
}
