import { recordedAuthor } from '../src/operations/authors.js';
import { isMissing } from '../src/common/missing.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifMatchOf } from '../src/common/entity-tags.js';
import { invalidRequest, Problem } from '../src/common/problems.js';

/** Used when a reply names no author and the git identity has no `user.name`. */
const UNKNOWN_AUTHOR = 'unknown';

/** POST /{tenant}/api/notes/{note_id}: adds a cell (`{cell_id}`) or a reply to a discussion cell (`{ok}`); 412 when `If-Match` fails. */
export async function addToNote(input: Input<'addToNote'>, deps: Deps): Promise<Result<'addToNote'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const noteId = input.path.note_id;
  const { cell, reply, cell_id: cellId } = input.body;
  const noNote = () => new Problem('not-found', `tenant ${tenant.compositeId} has no note ${noteId}`);
  const precondition = ifMatchOf(input.headers);
  if (cell !== undefined && reply === undefined && cellId === undefined) {
    const author = recordedAuthor(input.caller, undefined);
    const added = await deps.notes.addCell(tenant.compositeId, noteId, { cell: cell as Record<string, unknown>, author }, precondition);
    if (isMissing(added)) throw noNote();
    return { status: 200, body: { cell_id: added.cellId }, headers: { ETag: added.etag }, createdIds: { cell_id: added.cellId } };
  }
  if (reply !== undefined && cellId !== undefined && cell === undefined) {
    const author = recordedAuthor(input.caller, reply.author) ?? (await deps.identity(tenant)).name ?? UNKNOWN_AUTHOR;
    const outcome = await deps.notes.addReply(tenant.compositeId, noteId, cellId, { author, text: reply.text, date: reply.date }, precondition);
    if (isMissing(outcome) && outcome.missing === 'note') throw noNote();
    if (isMissing(outcome) && outcome.missing === 'cell') throw new Problem('not-found', `note ${noteId} has no cell ${cellId}`);
    if (isMissing(outcome)) throw new Problem('not-found', `cell ${cellId} is not a discussion; only discussion cells take replies`);
    return { status: 200, body: { ok: true }, headers: { ETag: outcome.etag } };
  }
  throw invalidRequest(
    [{ in: 'body', name: cell !== undefined ? 'cell' : reply !== undefined ? 'cell_id' : 'reply', message: 'give either `cell`, or `reply` with `cell_id`' }],
    'the body must hold either `cell` (add a cell) or `reply` with `cell_id` (reply to a discussion cell), not both and not neither',
  );
}
