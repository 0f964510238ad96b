import { ifNoneMatchOf } from '../src/common/entity-tags.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { notModified, taggedHeaders } from '../src/operations/results.js';

/** GET /{tenant}/api/notebook: the tenant's notebook, created empty on first access; 304 while `If-None-Match` names it. */
export async function getNotebook(input: Input<'getNotebook'>, deps: Deps): Promise<Result<'getNotebook'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const read = await deps.notebooks.read(tenant.compositeId, ifNoneMatchOf(input.headers));
  if (read.notebook === null) return notModified(read.etag);
  return { status: 200, body: { notebook: read.notebook }, headers: taggedHeaders(read.etag) };
}
