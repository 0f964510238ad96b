import { isMissing } from '../src/common/missing.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifMatchOf } from '../src/common/entity-tags.js';

/** DELETE /{tenant}/api/notes/{note_id}: deletes the note, or only the cell `cell_id`; `ok:false` when missing, 412 when `If-Match` fails. */
export async function deleteNote(input: Input<'deleteNote'>, deps: Deps): Promise<Result<'deleteNote'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const noteId = input.path.note_id;
  const precondition = ifMatchOf(input.headers);
  if (input.query.cell_id === undefined) return { status: 200, body: { ok: !isMissing(await deps.notes.delete(tenant.compositeId, noteId, precondition)) } };
  const etag = await deps.notes.deleteCell(tenant.compositeId, noteId, input.query.cell_id, precondition);
  return isMissing(etag) ? { status: 200, body: { ok: false } } : { status: 200, body: { ok: true }, headers: { ETag: etag } };
}
