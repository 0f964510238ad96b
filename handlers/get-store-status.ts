import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/store-status: `{active:false}` in local mode; downloads, errors and one entry per tenant in store mode. */
export async function getStoreStatus(_input: Input<'getStoreStatus'>, deps: Deps): Promise<Result<'getStoreStatus'>> {
  return { status: 200, body: deps.tenantSource.status(deps.tenants), headers: { 'Cache-Control': 'no-store' } };
}
