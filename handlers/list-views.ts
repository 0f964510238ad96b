import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { taggedHeaders } from '../src/operations/results.js';

/** GET /api/views: the tenant's saved views, optionally of one entity, each with its tag when asked; 304 while `If-None-Match` names the list. */
export async function listViews(input: Input<'listViews'>, deps: Deps): Promise<Result<'listViews'>> {
  const tenant = deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  const { etag, views } = await deps.views.list(tenant.compositeId, input.query.entity, input.query.include_etags === true);
  return { status: 200, body: { views }, headers: taggedHeaders(etag) };
}
