import { SLUG_PATTERN } from './tenant-ref.js';

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
