import { isMissing } from '../src/common/missing.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifMatchOf } from '../src/common/entity-tags.js';

/** PUT /api/views: replaces name and/or params; `ok:false` for an unknown view, 412 when `If-Match` fails; `ETag` the view's new tag. */
export async function updateView(input: Input<'updateView'>, deps: Deps): Promise<Result<'updateView'>> {
  const { tenant: tenantRef, view_id: viewId, name, params } = input.body;
  const tenant = deps.tenants.resolve(tenantRef, { in: 'body', name: 'tenant' });
  const etag = await deps.views.update(tenant.compositeId, { viewId, name, params }, ifMatchOf(input.headers));
  return isMissing(etag) ? { status: 200, body: { ok: false } } : { status: 200, body: { ok: true }, headers: { ETag: etag } };
}
