import { assertRepliesUntouched, recordedAuthor } from '../src/operations/authors.js';
import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifMatchOf } from '../src/common/entity-tags.js';
import { taggedHeaders } from '../src/operations/results.js';

/** PUT /{tenant}/api/notebook/cells/{cell_id}: merges `updates` into the cell; 404 for an unknown cell, 412 when `If-Match` fails. */
export async function updateNotebookCell(input: Input<'updateNotebookCell'>, deps: Deps): Promise<Result<'updateNotebookCell'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  assertRepliesUntouched(input.caller, input.body.updates);
  const precondition = ifMatchOf(input.headers);
  const outcome = await deps.notebooks.updateCell(
    tenant.compositeId,
    input.path.cell_id,
    { updates: input.body.updates, author: recordedAuthor(input.caller, input.body.author) },
    precondition,
  );
  if (isMissing(outcome)) throw new Problem('not-found', `the notebook of ${tenant.compositeId} has no cell ${input.path.cell_id}`);
  return { status: 200, body: { notebook: outcome.notebook }, headers: taggedHeaders(outcome.etag) };
}
