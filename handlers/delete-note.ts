import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { ifMatchOf } from '../src/http/conditional.js';
import { deleteNote as removeNote } from '../src/notes/notes.js';

/** DELETE /{tenant}/api/notes/{note_id}: deletes the note, or only the cell `cell_id`; `ok:false` when missing, 412 when `If-Match` fails. */
export async function deleteNote(input: Input<'deleteNote'>, deps: Deps): Promise<Result<'deleteNote'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const outcome = await removeNote(deps.appDb.dataSource, tenant.compositeId, input.path.note_id, input.query.cell_id, ifMatchOf(input.headers));
  return { status: 200, body: { ok: outcome.deleted }, ...(outcome.etag === undefined ? {} : { headers: { ETag: outcome.etag } }) };
}
