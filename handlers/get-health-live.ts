import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /health/live: 200 while the process runs, whatever its databases say (liveness probe). */
export async function getHealthLive(_input: Input<'getHealthLive'>, deps: Deps): Promise<Result<'getHealthLive'>> {
  return { status: 200, body: { status: 'live', version: deps.buildLabel.label }, headers: { 'Cache-Control': 'no-store' } };
}
