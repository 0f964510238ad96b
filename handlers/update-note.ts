import { assertRepliesUntouched, recordedAuthor } from '../src/operations/authors.js';
import { isMissing, type Missing } from '../src/common/missing.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifMatchOf } from '../src/common/entity-tags.js';
import { invalidRequest } from '../src/common/problems.js';

/** PUT /{tenant}/api/notes/{note_id}: changes one cell (`cell_id` + `updates`) or the note's title/tags; 412 when `If-Match` fails. */
export async function updateNote(input: Input<'updateNote'>, deps: Deps): Promise<Result<'updateNote'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const noteId = input.path.note_id;
  const { cell_id: cellId, updates, title, tags } = input.body;
  const metadata = title !== undefined || tags !== undefined;
  const precondition = ifMatchOf(input.headers);
  const answer = (etag: string | Missing): Result<'updateNote'> => (isMissing(etag) ? { status: 200, body: { ok: false } } : { status: 200, body: { ok: true }, headers: { ETag: etag } });
  if (cellId !== undefined && updates !== undefined && !metadata) {
    assertRepliesUntouched(input.caller, updates);
    const author = recordedAuthor(input.caller, undefined);
    return answer(await deps.notes.updateCell(tenant.compositeId, noteId, cellId, { updates, author }, precondition));
  }
  if (metadata && cellId === undefined && updates === undefined) {
    return answer(await deps.notes.updateMetadata(tenant.compositeId, noteId, { title, tags }, precondition));
  }
  const name = metadata ? (cellId !== undefined ? 'cell_id' : 'updates') : cellId === undefined ? 'cell_id' : 'updates';
  throw invalidRequest(
    [{ in: 'body', name, message: 'give either `cell_id` with `updates` (change a cell), or `title` and/or `tags` (change the note)' }],
    'the body must either change a cell (`cell_id` with `updates`) or the note (`title` and/or `tags`), not both',
  );
}
