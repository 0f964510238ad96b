import { ifNoneMatchOf } from '../src/common/entity-tags.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { notModified, taggedHeaders } from '../src/operations/results.js';

/** GET /{tenant}/api/notes: summaries of the tenant's notes, most recently updated first; 304 while `If-None-Match` names them. */
export async function listNotes(input: Input<'listNotes'>, deps: Deps): Promise<Result<'listNotes'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const read = await deps.notes.list(tenant.compositeId, ifNoneMatchOf(input.headers));
  if (read.value === null) return notModified(read.etag);
  return { status: 200, body: { notes: read.value }, headers: taggedHeaders(read.etag) };
}
