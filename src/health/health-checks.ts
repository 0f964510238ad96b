import type { Health, HealthOutcome, ReadinessOutcome } from '../ports/server-state.js';
import type { HealthSources } from './health-sources.js';
import { checkHealth } from './health.js';
import { checkReadiness } from './readiness.js';

/** Health (GET /health) and readiness (GET /health/ready) of this instance. */
export class HealthChecks implements Health {
  constructor(private readonly sources: HealthSources) {}

  health(): Promise<HealthOutcome> {
    return checkHealth(this.sources);
  }

  readiness(): Promise<ReadinessOutcome> {
    return checkReadiness(this.sources);
  }
}
