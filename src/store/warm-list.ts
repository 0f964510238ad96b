/**
 * The tenants STORE_WARM names, in its order: a `<pack>.<slug>` entry names that tenant, a `<pack>.*` entry the
 * pack's tenants in composite-ID order; each tenant once, only those listed.
 */
export function warmOrder(warm: readonly string[], listed: readonly string[]): string[] {
  const sorted = [...listed].sort();
  const known = new Set(sorted);
  const order = new Set<string>();
  for (const entry of warm) {
    if (entry.endsWith('.*')) {
      const pack = entry.slice(0, -1);
      for (const id of sorted) if (id.startsWith(pack)) order.add(id);
    } else if (known.has(entry)) {
      order.add(entry);
    }
  }
  return [...order];
}
