import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import { ifNoneMatchOf } from '../src/common/entity-tags.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { notModified, taggedHeaders } from '../src/operations/results.js';

/** GET /{tenant}/api/notes/{note_id}: the note with its cells; 404 for an unknown note, 304 while `If-None-Match` names it. */
export async function getNote(input: Input<'getNote'>, deps: Deps): Promise<Result<'getNote'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const read = await deps.notes.read(tenant.compositeId, input.path.note_id, ifNoneMatchOf(input.headers));
  if (isMissing(read)) throw new Problem('not-found', `tenant ${tenant.compositeId} has no note ${input.path.note_id}`);
  if (read.value === null) return notModified(read.etag);
  return { status: 200, body: { note: read.value }, headers: taggedHeaders(read.etag) };
}
