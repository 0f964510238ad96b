import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** POST /api/refresh: scope from the JSON body or the query (body values win). */
export async function refreshStore(input: Input<'refreshStore'>, deps: Deps): Promise<Result<'refreshStore'>> {
  const { body, reach } = await deps.tenantSource.refresh({ ...input.query, ...(input.body ?? {}) }, deps.tenants);
  return { status: 200, body, ...(reach === null ? {} : { headers: { 'X-Refresh-Reach': reach } }) };
}
