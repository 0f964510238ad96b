import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/refresh: the same as POST, scope from the query. */
export async function refreshStoreViaGet(input: Input<'refreshStoreViaGet'>, deps: Deps): Promise<Result<'refreshStoreViaGet'>> {
  const { body, reach } = await deps.tenantSource.refresh(input.query, deps.tenants);
  return { status: 200, body, ...(reach === null ? {} : { headers: { 'X-Refresh-Reach': reach } }) };
}
