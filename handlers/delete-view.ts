import { isMissing } from '../src/common/missing.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifMatchOf } from '../src/common/entity-tags.js';

/** DELETE /api/views: deletes a view; `ok:false` for an unknown view, 412 when `If-Match` fails. */
export async function deleteView(input: Input<'deleteView'>, deps: Deps): Promise<Result<'deleteView'>> {
  const tenant = deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  const miss = await deps.views.delete(tenant.compositeId, input.query.view_id, ifMatchOf(input.headers));
  return { status: 200, body: { ok: !isMissing(miss) } };
}
