import type { TenantRegistry } from '../tenants/registry.js';

/** One jumpbar tenant: composite ID, display name, where its file comes from. */
export interface TenantListItem {
  id: string;
  name: string;
  source: 'local' | 'store';
}

/** Every known tenant for the jumpbar (design.md section 10). */
export const listTenants = (tenants: TenantRegistry): TenantListItem[] =>
  tenants.list().map((t) => ({ id: t.compositeId, name: t.displayName, source: tenants.source }));
