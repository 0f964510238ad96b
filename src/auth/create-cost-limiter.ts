import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { CostLimits, type OwnedCostLimiter } from './cost-limits.js';
// Loaded at start, though used only on PostgreSQL: it costs nothing more (rate-limiter-flexible is loaded for
// CostLimits, pg only when it opens), and a problem it throws must be the Problem of the modules that answer it (a
// module loaded with import() was, in tests, another module instance, whose 429 was answered as a 500).
import { SharedCostLimits } from './shared-cost-limits.js';

/**
 * The limits on costly work for `config`: counted across every instance on a PostgreSQL app database
 * (SharedCostLimits), in this process with SQLite.
 */
export async function createCostLimiter(config: Config, log: Logger): Promise<OwnedCostLimiter> {
  if (config.appDb.kind !== 'postgres') return new CostLimits(config.limits);
  return SharedCostLimits.open(config.limits, config.appDb.url, log.child({ component: 'cost-limits' }));
}
