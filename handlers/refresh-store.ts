import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { refresh } from '../src/store/refresh.js';

/** POST /api/refresh: scope from the JSON body or the query (body values win). */
export async function refreshStore(input: Input<'refreshStore'>, deps: Deps): Promise<Result<'refreshStore'>> {
  const { body, reach } = await refresh({ ...input.query, ...(input.body ?? {}) }, deps);
  return { status: 200, body, ...(reach === null ? {} : { headers: { 'X-Refresh-Reach': reach } }) };
}
