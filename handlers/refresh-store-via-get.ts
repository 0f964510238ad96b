import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { refresh } from '../src/store/refresh.js';

/** GET /api/refresh: the same as POST, scope from the query. */
export async function refreshStoreViaGet(input: Input<'refreshStoreViaGet'>, deps: Deps): Promise<Result<'refreshStoreViaGet'>> {
  const { body, reach } = await refresh(input.query, deps);
  return { status: 200, body, ...(reach === null ? {} : { headers: { 'X-Refresh-Reach': reach } }) };
}
