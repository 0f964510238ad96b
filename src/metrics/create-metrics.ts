import { DISABLED_METRICS, type Metrics } from './metrics.js';

/** The server's metrics: a registry of its own (never prom-client's global one), or nothing when `enabled` is false. */
export async function createMetrics(enabled: boolean): Promise<Metrics> {
  if (!enabled) return DISABLED_METRICS;
  // prom-client is loaded only when metrics are on
  const { prometheusMetrics } = await import('./prometheus-metrics.js');
  return prometheusMetrics();
}
