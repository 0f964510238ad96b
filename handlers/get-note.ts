import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { holdsTag, notModified, taggedHeaders } from '../src/http/conditional.js';
import { problemResult } from '../src/http/results.js';

/** GET /{tenant}/api/notes/{note_id}: the note with its cells; 404 for an unknown note, 304 while `If-None-Match` names it. */
export async function getNote(input: Input<'getNote'>, deps: Deps): Promise<Result<'getNote'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const read = await deps.notes.read(tenant.compositeId, input.path.note_id, holdsTag(input.headers));
  if (read === null) return problemResult('not-found', `tenant ${tenant.compositeId} has no note ${input.path.note_id}`);
  if (read.value === null) return notModified(input.headers, read.etag);
  return { status: 200, body: { note: read.value }, headers: taggedHeaders(read.etag) };
}
