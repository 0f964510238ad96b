import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { toApiStoreStatus } from '../src/store/store-status.js';

/** GET /api/store-status: `{active:false}` in local mode; downloads, errors and one entry per tenant in store mode. */
export async function getStoreStatus(_input: Input<'getStoreStatus'>, deps: Deps): Promise<Result<'getStoreStatus'>> {
  const body = deps.store === null ? { active: false as const } : toApiStoreStatus(deps.tenants, deps.store);
  return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
}
