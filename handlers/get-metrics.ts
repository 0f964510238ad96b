import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /metrics: the Prometheus text exposition; 404 like an unknown route with METRICS=off. */
export async function getMetrics(_input: Input<'getMetrics'>, deps: Deps): Promise<Result<'getMetrics'>> {
  if (!deps.metrics.enabled) throw new Problem('route-not-found', 'no route for GET /metrics');
  return {
    status: 200,
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
    body: await deps.metrics.exposition(),
    headers: { 'Cache-Control': 'no-store' },
  };
}
