import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { updateView as changeView } from '../src/views/saved-views.js';

/** PUT /api/views: replaces name and/or params; `ok:false` for an unknown view. */
export async function updateView(input: Input<'updateView'>, deps: Deps): Promise<Result<'updateView'>> {
  const { tenant: tenantRef, view_id: viewId, name, params } = input.body;
  const tenant = deps.tenants.resolve(tenantRef, { in: 'body', name: 'tenant' });
  const ok = await changeView(deps.appDb.dataSource, tenant.compositeId, { viewId, name, params });
  return { status: 200, body: { ok } };
}
