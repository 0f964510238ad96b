import { recordedAuthor } from '../src/auth/caller.js';
import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { ifMatchOf } from '../src/http/conditional.js';
import { cellRules } from '../src/notebooks/cell-rules.js';
import { appendNotebookCell } from '../src/notebooks/notebook.js';

/** POST /{tenant}/api/notebook/cells: appends a cell; 201 with the updated notebook and its tag, 412 when `If-Match` fails. */
export async function addNotebookCell(input: Input<'addNotebookCell'>, deps: Deps): Promise<Result<'addNotebookCell'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const precondition = ifMatchOf(input.headers);
  const added = await appendNotebookCell(
    deps.appDb.dataSource,
    cellRules(deps.contract.document),
    tenant.compositeId,
    { cell: input.body.cell as Record<string, unknown>, author: recordedAuthor(input.caller, input.body.author) },
    precondition,
  );
  return { status: 201, body: { notebook: added.notebook }, headers: { ETag: added.etag }, touched: { cell_id: added.cellId } };
}
