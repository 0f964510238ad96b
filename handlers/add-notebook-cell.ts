import { recordedAuthor } from '../src/auth/caller.js';
import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { cellRules } from '../src/notebooks/cell-rules.js';
import { appendNotebookCell } from '../src/notebooks/notebook.js';

/** POST /{tenant}/api/notebook/cells: appends a cell; 201 with the updated notebook and the new cell's path in `Location`. */
export async function addNotebookCell(input: Input<'addNotebookCell'>, deps: Deps): Promise<Result<'addNotebookCell'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const added = await appendNotebookCell(deps.appDb.dataSource, cellRules(deps.contract.document), tenant.compositeId, {
    cell: input.body.cell as Record<string, unknown>,
    author: recordedAuthor(input.caller, input.body.author),
  });
  // where the new cell is changed and deleted, under the tenant as the request named it
  const location = `/${encodeURIComponent(input.path.tenant)}/api/notebook/cells/${added.cellId}`;
  return { status: 201, body: { notebook: added.notebook }, headers: { Location: location }, touched: { cell_id: added.cellId } };
}
