import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { refresh } from '../src/store/refresh.js';

/** GET /api/refresh: the same as POST, scope from the query. */
export async function refreshStoreViaGet(input: Input<'refreshStoreViaGet'>, deps: Deps): Promise<Result<'refreshStoreViaGet'>> {
  return { status: 200, body: await refresh(input.query, deps) };
}
