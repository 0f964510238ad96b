import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/store-status: `{active:false}` in local mode; downloads, errors, one entry per tenant and (asked for) the cache in store mode. */
export async function getStoreStatus(input: Input<'getStoreStatus'>, deps: Deps): Promise<Result<'getStoreStatus'>> {
  return { status: 200, body: deps.tenantSource.status(deps.tenants, input.query.include_cache === true), headers: { 'Cache-Control': 'no-store' } };
}
