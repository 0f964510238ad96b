import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { toApiStoreStatus } from '../src/store/store-status.js';

/** GET /api/store-status: `{active:false}` in local mode; downloads, errors, one entry per tenant and (asked for) the cache in store mode. */
export async function getStoreStatus(input: Input<'getStoreStatus'>, deps: Deps): Promise<Result<'getStoreStatus'>> {
  const body = deps.store === null ? { active: false as const } : toApiStoreStatus(deps.tenants, deps.store, input.query.include_cache === true);
  return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
}
