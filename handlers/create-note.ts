import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** POST /{tenant}/api/notes: creates an empty note; its author is the caller (with sign-in) or the git identity's name. */
export async function createNote(input: Input<'createNote'>, deps: Deps): Promise<Result<'createNote'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const identity = await deps.identity(tenant);
  const created = await deps.notes.create(tenant.compositeId, { title: input.body.title, tags: input.body.tags ?? [], author: identity.name });
  return { status: 200, body: { note: created.note }, headers: { ETag: created.etag }, createdIds: { note_id: created.note.note_id } };
}
