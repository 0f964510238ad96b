import type { components } from '../../generated/openapi.js';
import { isInService } from '../tenants/file-provider.js';
import { toMb } from '../tenants/registry.js';
import type { TenantEntry, Tenants } from '../tenants/tenants.js';
import type { KlsStore } from './kls-store.js';

type StoreStatusActive = components['schemas']['StoreStatusActive'];
type StoreTenant = components['schemas']['StoreTenant'];
type StoreCache = components['schemas']['StoreCache'];
type StoreCacheState = components['schemas']['StoreCacheState'];

/** One tenant's download state as store-status reports it; with `includeCache`, its place in the cache. */
export function toApiStoreTenant(entry: TenantEntry, store: KlsStore, includeCache = false): StoreTenant {
  const served = entry.handle !== null && !entry.handle.isClosed;
  const tenant: StoreTenant = {
    compositeId: entry.compositeId,
    tenantId: entry.slug,
    displayName: entry.displayName,
    pack: entry.pack,
    sizeMb: served && entry.stamp !== null ? toMb(entry.stamp.size) : null,
    status: entry.status,
    hasSis: entry.hasSis,
    error: entry.error,
    ...store.progressOf(entry.compositeId),
    generation: entry.generation,
  };
  if (includeCache) tenant.cache = cacheStateOf(entry, store);
  return tenant;
}

/**
 * The store-mode answer of GET /api/store-status, over the tenants `registry` shows (the caller's); with
 * `includeCache`, the instance's cache too.
 */
export function toApiStoreStatus(registry: Tenants, store: KlsStore, includeCache = false): StoreStatusActive {
  const tenants = registry.list().map((entry) => toApiStoreTenant(entry, store, includeCache));
  const downloading = tenants.some((t) => t.status === 'downloading');
  const settled = store.cache === null ? tenants.every((t) => t.status === 'ready') : !downloading;
  const status: StoreStatusActive = {
    active: true,
    initialized: store.initialized,
    ready: store.initialized && !store.neverReached && settled,
    downloading,
    error: store.error,
    bytesDone: tenants.reduce((sum, t) => sum + t.bytesDone, 0),
    bytesTotal: tenants.reduce((sum, t) => sum + t.bytesTotal, 0),
    tenants,
  };
  if (includeCache) status.cache = toApiStoreCache(store);
  return status;
}

/** The instance's cache: its bytes against the bound, what it holds, how refreshes reach it. */
function toApiStoreCache(store: KlsStore): StoreCache {
  const cache = store.cache;
  return {
    instance: store.instance,
    maxBytes: cache?.budget.maxBytes ?? null,
    usedBytes: cache?.budget.usedBytes ?? null,
    reservedBytes: cache?.budget.reservedBytes ?? null,
    cachedTenants: store.cachedTenants(),
    evictions: cache?.evictions ?? 0,
    refreshes: store.refreshes,
  };
}

function cacheStateOf(entry: TenantEntry, store: KlsStore): StoreCacheState {
  if (store.cache !== null) return store.cache.stateOf(entry);
  if (isInService(entry)) return 'cached';
  return store.isBusy(entry.compositeId) ? 'fetching' : 'not-fetched';
}
