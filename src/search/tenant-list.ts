import type { Tenants } from '../tenants/tenants.js';

/** One jumpbar tenant: composite ID, display name, where its file comes from. */
export interface TenantListItem {
  id: string;
  name: string;
  source: 'local' | 'store';
}

/** Every tenant in the caller's scope, for the jumpbar: composite ID, display name, `local` or `store`. */
export const listTenants = (tenants: Tenants): TenantListItem[] =>
  tenants.list().map((t) => ({ id: t.compositeId, name: t.displayName, source: tenants.source }));
