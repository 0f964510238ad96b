import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { heldTag, notModified, taggedHeaders } from '../src/http/conditional.js';

/** GET /api/views: the tenant's saved views, optionally of one entity, each with its tag when asked; 304 while `If-None-Match` names the list. */
export async function listViews(input: Input<'listViews'>, deps: Deps): Promise<Result<'listViews'>> {
  const tenant = deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  const { etag, views } = await deps.views.list(tenant.compositeId, input.query.entity, input.query.include_etags === true);
  if (heldTag(input.headers['if-none-match'], etag) !== null) return notModified(input.headers, etag);
  return { status: 200, body: { views }, headers: taggedHeaders(etag) };
}
