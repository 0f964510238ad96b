import type { Deps } from '../src/deps.js';
import type { Input, Result } from '../src/http/contract.js';

/** GET /api/store-status: `{active:false}` outside KLS store mode. */
export async function getStoreStatus(_input: Input<'getStoreStatus'>, _deps: Deps): Promise<Result<'getStoreStatus'>> {
  return { status: 200, body: { active: false }, headers: { 'Cache-Control': 'no-store' } };
}
