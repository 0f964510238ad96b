import type { components } from '../../generated/openapi.js';
import { toMb } from '../tenants/registry.js';
import type { TenantEntry, Tenants } from '../tenants/tenants.js';
import type { KlsStore } from './kls-store.js';

type StoreStatusActive = components['schemas']['StoreStatusActive'];
type StoreTenant = components['schemas']['StoreTenant'];

/** One tenant's download state as store-status reports it. */
export function toApiStoreTenant(entry: TenantEntry, store: KlsStore): StoreTenant {
  const served = entry.handle !== null && !entry.handle.isClosed;
  return {
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
}

/** The store-mode answer of GET /api/store-status, over the tenants `registry` shows (the caller's). */
export function toApiStoreStatus(registry: Tenants, store: KlsStore): StoreStatusActive {
  const tenants = registry.list().map((entry) => toApiStoreTenant(entry, store));
  return {
    active: true,
    initialized: store.initialized,
    ready: store.initialized && !store.neverReached && tenants.every((t) => t.status === 'ready'),
    downloading: tenants.some((t) => t.status === 'downloading'),
    error: store.error,
    bytesDone: tenants.reduce((sum, t) => sum + t.bytesDone, 0),
    bytesTotal: tenants.reduce((sum, t) => sum + t.bytesTotal, 0),
    tenants,
  };
}
