import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/db-status/{tenant}: generation and file stat, no database query. */
export async function getDbStatus(input: Input<'getDbStatus'>, deps: Deps): Promise<Result<'getDbStatus'>> {
  const entry = deps.tenants.resolve(input.path.tenant);
  const stat = deps.tenants.statFile(entry);
  return { status: 200, body: stat, headers: { 'Cache-Control': 'no-store' } };
}
