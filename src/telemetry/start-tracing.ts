import type { Logger } from '../logger.js';
import type { RunningTracing } from '../tracing.js';
import type { TracingConfig } from './tracing-config.js';

/**
 * Starts tracing when `config` asks for it; with null nothing of OpenTelemetry is imported and null is answered.
 * Call it before anything opens a connection: the instrumentations patch `http` and `pg` as they are loaded.
 */
export async function startTracing(config: TracingConfig | null, log: Logger): Promise<RunningTracing | null> {
  if (config === null) return null;
  const { startOpenTelemetry } = await import('./open-telemetry.js');
  return startOpenTelemetry(config, log);
}
