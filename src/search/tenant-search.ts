import { HttpProblem } from '../http/errors.js';
import type { TenantEntry, TenantRegistry } from '../tenants/registry.js';
import type { SearchIndexes } from './search-indexes.js';
import type { SearchResults } from './search-index.js';

/** Identity of the file a tenant generation was opened from, when the registry still describes that generation. */
function fingerprintOf(entry: TenantEntry, generation: number): string | null {
  const stamp = entry.stamp;
  return entry.generation === generation && stamp !== null ? `${stamp.size}:${stamp.mtimeMs}:${stamp.ino}` : null;
}

/**
 * Searches one tenant (slug or composite ID): 400/404/409 from the registry, 503 while its file is not
 * usable or its search index cannot be built.
 */
export async function searchTenant(tenants: TenantRegistry, indexes: SearchIndexes, tenant: string, query: string): Promise<SearchResults> {
  const entry = tenants.resolve(tenant, { in: 'query', name: 'tenant' });
  const lease = tenants.lease(entry);
  try {
    const source = { compositeId: entry.compositeId, dir: entry.dir, generation: lease.generation, fingerprint: fingerprintOf(entry, lease.generation), db: lease.db };
    return await indexes.search(source, query);
  } catch (err) {
    if (err instanceof HttpProblem) throw err;
    throw new HttpProblem('service-unavailable', `the search index of tenant "${entry.compositeId}" could not be built; retry later`, {
      headers: { 'Retry-After': '30' },
    });
  } finally {
    lease.release();
  }
}
