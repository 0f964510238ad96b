import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { readNotebook } from '../src/notebooks/notebook.js';

/** GET /{tenant}/api/notebook: the tenant's notebook, created empty on first access. */
export async function getNotebook(input: Input<'getNotebook'>, deps: Deps): Promise<Result<'getNotebook'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const notebook = await readNotebook(deps.appDb.dataSource, tenant.compositeId);
  return { status: 200, body: { notebook } };
}
