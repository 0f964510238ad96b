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
