import { Problem } from '../common/problems.js';
import type { KlsLease, TenantEntry, Tenants } from '../tenants/tenants.js';
import type { IndexSource, SearchIndexes } from './search-indexes.js';
import type { EncodedResults } from '../ports/tenant-reads.js';

/** Identity of the file a tenant generation was opened from, when the registry still describes that generation. */
function fingerprintOf(entry: TenantEntry, generation: number): string | null {
  const stamp = entry.stamp;
  return entry.generation === generation && stamp !== null ? `${stamp.size}:${stamp.mtimeMs}:${stamp.ino}` : null;
}

/** The generation a lease holds, as the search indexes see it. */
function sourceOf(entry: TenantEntry, lease: KlsLease): IndexSource {
  return { compositeId: entry.compositeId, dir: entry.dir, generation: lease.generation, fingerprint: fingerprintOf(entry, lease.generation), db: lease.db };
}

/** The tenants as the server's own background work sees them: leases of files in service only, nothing fetched. */
export interface CachedTenants {
  get(compositeId: string): TenantEntry | undefined;
  leaseCached(entry: TenantEntry): KlsLease;
}

/** Queues the index build of a tenant's current generation, so that its first search does not wait for it. */
export function prebuildSearchIndex(tenants: CachedTenants, indexes: SearchIndexes, compositeId: string): void {
  indexes.prepare(() => {
    const entry = tenants.get(compositeId);
    if (entry === undefined) return null;
    let lease: KlsLease;
    try {
      lease = tenants.leaseCached(entry);
    } catch {
      return null; // not usable now; a search will build it
    }
    return { ...sourceOf(entry, lease), release: lease.release };
  });
}

/** Searches one resolved tenant: 503 while its file is not usable or its search index cannot be built. */
export async function searchTenant(tenants: Pick<Tenants, 'lease'>, indexes: SearchIndexes, entry: TenantEntry, query: string): Promise<EncodedResults> {
  const lease = await tenants.lease(entry);
  try {
    return await indexes.search(sourceOf(entry, lease), query);
  } catch (err) {
    if (err instanceof Problem) throw err;
    throw new Problem('service-unavailable', `the search index of tenant "${entry.compositeId}" could not be built; retry later`, { retryAfterSeconds: 30 });
  } finally {
    lease.release();
  }
}
