import type { BuildInfo } from './build-info.js';
import type { CodeHost } from './code-host.js';
import { checkDrift } from './drift-check.js';
import type { CachedDrift, DriftCache } from './drift-cache.js';

/** Drift reports of the tenants' builds: compared through the code host, cached per tenant and file generation. */
export class DriftChecks {
  constructor(
    private readonly codeHost: CodeHost,
    private readonly cache: DriftCache,
  ) {}

  /** The report of the tenant's file at `generation`, whose `build_info` is `buildInfo`, and how long it stays valid. */
  report(tenantId: string, generation: number, buildInfo: BuildInfo): Promise<CachedDrift> {
    return this.cache.get(tenantId, generation, () => checkDrift(buildInfo, this.codeHost));
  }
}
