import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /health: 200 with mode-specific details, 503 `{status:"error"}` when the service cannot answer. */
export async function getHealth(_input: Input<'getHealth'>, deps: Deps): Promise<Result<'getHealth'>> {
  const health = await deps.health.health();
  const headers = { 'Cache-Control': 'no-store' };
  return health.healthy ? { status: 200, body: health.body, headers } : { status: 503, body: health.body, headers };
}
