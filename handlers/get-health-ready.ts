import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /health/ready: 200 when this instance can serve, 503 with the reason when it cannot (readiness probe). */
export async function getHealthReady(_input: Input<'getHealthReady'>, deps: Deps): Promise<Result<'getHealthReady'>> {
  const readiness = await deps.health.readiness();
  const headers = { 'Cache-Control': 'no-store' };
  return readiness.ready ? { status: 200, body: readiness.body, headers } : { status: 503, body: readiness.body, headers };
}
