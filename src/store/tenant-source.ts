import type { components } from '../../generated/openapi.js';
import type { RefreshAnswer, RefreshRequest, TenantSource } from '../ports/server-state.js';
import type { Tenants } from '../tenants/tenants.js';
import type { KlsStore } from './kls-store.js';
import { refresh } from './refresh.js';
import { toApiStoreStatus } from './store-status.js';

type Schemas = components['schemas'];

/** Where the tenant files come from: the object store's sync (store mode), or KLS_DIR as it is (local mode, `store` null). */
export class StoreSource implements TenantSource {
  constructor(
    private readonly store: KlsStore | null,
    private readonly klsMode: 'local' | 'store',
  ) {}

  status(view: Tenants, includeCache = false): Schemas['StoreStatusInactive'] | Schemas['StoreStatusActive'] {
    return this.store === null ? { active: false } : toApiStoreStatus(view, this.store, includeCache);
  }

  refresh(request: RefreshRequest, view: Tenants): Promise<RefreshAnswer> {
    return refresh(request, { tenants: view, store: this.store, klsMode: this.klsMode });
  }
}
