import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { listViews as listSavedViews } from '../src/views/saved-views.js';

/** GET /api/views: the tenant's saved views, optionally of one entity. */
export async function listViews(input: Input<'listViews'>, deps: Deps): Promise<Result<'listViews'>> {
  const tenant = deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  const views = await listSavedViews(deps.appDb.dataSource, tenant.compositeId, input.query.entity);
  return { status: 200, body: { views } };
}
