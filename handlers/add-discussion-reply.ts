import { recordedAuthor } from '../src/operations/authors.js';
import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifMatchOf } from '../src/common/entity-tags.js';

/** POST /{tenant}/api/notebook/cells/{cell_id}/discussion: appends a reply; 404 unless the cell is a discussion, 412 when `If-Match` fails. */
export async function addDiscussionReply(input: Input<'addDiscussionReply'>, deps: Deps): Promise<Result<'addDiscussionReply'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const cellId = input.path.cell_id;
  const { author, text, date } = input.body;
  const precondition = ifMatchOf(input.headers);
  const outcome = await deps.notebooks.addReply(tenant.compositeId, cellId, { author: recordedAuthor(input.caller, author) ?? author, text, date }, precondition);
  if (isMissing(outcome) && outcome.missing === 'cell') throw new Problem('not-found', `the notebook of ${tenant.compositeId} has no cell ${cellId}`);
  if (isMissing(outcome)) throw new Problem('not-found', `cell ${cellId} is not a discussion; only discussion cells take replies`);
  return { status: 201, body: { notebook: outcome.notebook }, headers: { ETag: outcome.etag } };
}
