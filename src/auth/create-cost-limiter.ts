import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { CostLimits, type OwnedCostLimiter } from './cost-limits.js';

/**
 * The limits on costly work for `config`: counted across every instance on a PostgreSQL app database
 * (SharedCostLimits, loaded only then), in this process with SQLite.
 */
export async function createCostLimiter(config: Config, log: Logger): Promise<OwnedCostLimiter> {
  if (config.appDb.kind !== 'postgres') return new CostLimits(config.limits);
  const { SharedCostLimits } = await import('./shared-cost-limits.js');
  return SharedCostLimits.open(config.limits, config.appDb.url, log.child({ component: 'cost-limits' }));
}
