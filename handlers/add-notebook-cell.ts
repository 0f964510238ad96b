import { recordedAuthor } from '../src/auth/caller.js';
import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { cellRules } from '../src/notebooks/cell-rules.js';
import { appendNotebookCell } from '../src/notebooks/notebook.js';

/** POST /{tenant}/api/notebook/cells: appends a cell; 201 with the updated notebook. */
export async function addNotebookCell(input: Input<'addNotebookCell'>, deps: Deps): Promise<Result<'addNotebookCell'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const added = await appendNotebookCell(deps.appDb.dataSource, cellRules(deps.contract.document), tenant.compositeId, {
    cell: input.body.cell as Record<string, unknown>,
    author: recordedAuthor(input.caller, input.body.author),
  });
  return { status: 201, body: { notebook: added.notebook }, touched: { cell_id: added.cellId } };
}
