import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { holdsTag, notModified, taggedHeaders } from '../src/http/conditional.js';

/** GET /{tenant}/api/notebook: the tenant's notebook, created empty on first access; 304 while `If-None-Match` names it. */
export async function getNotebook(input: Input<'getNotebook'>, deps: Deps): Promise<Result<'getNotebook'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const read = await deps.notebooks.read(tenant.compositeId, holdsTag(input.headers));
  if (read.notebook === null) return notModified(input.headers, read.etag);
  return { status: 200, body: { notebook: read.notebook }, headers: taggedHeaders(read.etag) };
}
