import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifMatchOf } from '../src/common/entity-tags.js';
import { taggedHeaders } from '../src/operations/results.js';

/** DELETE /{tenant}/api/notebook/cells/{cell_id}: removes the cell; 404 for an unknown cell, 412 when `If-Match` fails. */
export async function deleteNotebookCell(input: Input<'deleteNotebookCell'>, deps: Deps): Promise<Result<'deleteNotebookCell'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const outcome = await deps.notebooks.deleteCell(tenant.compositeId, input.path.cell_id, ifMatchOf(input.headers));
  if (isMissing(outcome)) throw new Problem('not-found', `the notebook of ${tenant.compositeId} has no cell ${input.path.cell_id}`);
  return { status: 200, body: { notebook: outcome.notebook }, headers: taggedHeaders(outcome.etag) };
}
