import { recordedAuthor } from '../src/operations/authors.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** POST /api/views: stores a new view of a dimension table (with sign-in, the caller is its author); its tag as `ETag`. */
export async function createView(input: Input<'createView'>, deps: Deps): Promise<Result<'createView'>> {
  const { tenant: tenantRef, entity, name, params, author } = input.body;
  const tenant = deps.tenants.resolve(tenantRef, { in: 'body', name: 'tenant' });
  const { view, etag } = await deps.views.create(tenant.compositeId, { entity, name, params, author: recordedAuthor(input.caller, author) });
  return { status: 200, body: { view }, headers: { ETag: etag }, createdIds: { view_id: view.view_id } };
}
