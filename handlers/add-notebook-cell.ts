import { recordedAuthor } from '../src/operations/authors.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifMatchOf } from '../src/common/entity-tags.js';

/**
 * POST /{tenant}/api/notebook/cells: appends a cell; 201 with the updated notebook, its tag and the new cell's path in
 * `Location`; 412 when `If-Match` fails.
 */
export async function addNotebookCell(input: Input<'addNotebookCell'>, deps: Deps): Promise<Result<'addNotebookCell'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const precondition = ifMatchOf(input.headers);
  const added = await deps.notebooks.addCell(
    tenant.compositeId,
    { cell: input.body.cell as Record<string, unknown>, author: recordedAuthor(input.caller, input.body.author) },
    precondition,
  );
  // where the new cell is changed and deleted, under the tenant as the request named it
  const location = `/${encodeURIComponent(input.path.tenant)}/api/notebook/cells/${added.cellId}`;
  return { status: 201, body: { notebook: added.notebook }, headers: { ETag: added.etag, Location: location }, createdIds: { cell_id: added.cellId } };
}
