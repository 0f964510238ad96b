import type { components } from '../../generated/openapi.js';
import type { Drift, DriftAnswer } from '../ports/outbound.js';
import type { TenantEntry, Tenants } from '../tenants/tenants.js';
import { readBuildInfo, type BuildInfo } from './build-info.js';
import type { CodeHost } from './code-host.js';
import { checkDrift, type DriftReport } from './drift-check.js';
import type { DriftCache } from './drift-cache.js';

/** Drift reports of the tenants' builds: compared through the code host, cached per tenant and file generation. */
export class DriftChecks implements Drift {
  constructor(
    private readonly tenants: Pick<Tenants, 'lease'>,
    private readonly codeHost: CodeHost,
    private readonly cache: DriftCache,
  ) {}

  async check(entry: TenantEntry): Promise<DriftAnswer> {
    const lease = await this.tenants.lease(entry);
    let buildInfo: BuildInfo;
    try {
      buildInfo = readBuildInfo(lease.db);
    } finally {
      // the outbound call must not keep a swapped-out file open
      lease.release();
    }
    const { report, maxAgeSeconds } = await this.cache.get(entry.compositeId, lease.generation, () => checkDrift(buildInfo, this.codeHost));
    return { result: toApiDrift(report), maxAgeSeconds };
  }
}

/** The contract's DriftResult: only the members set for the report's status. */
function toApiDrift(report: DriftReport): components['schemas']['DriftResult'] {
  const body: components['schemas']['DriftResult'] = { status: report.status };
  if (report.repo !== undefined) body.repo = report.repo;
  if (report.buildCommit !== undefined) body.build_commit = report.buildCommit;
  if (report.remoteHead !== undefined) body.remote_head = report.remoteHead;
  if (report.aheadBy !== undefined) body.ahead_by = report.aheadBy;
  if (report.commits !== undefined) body.commits = report.commits.map((c) => ({ sha: c.sha, author: c.author, date: c.date, message: c.message }));
  if (report.files !== undefined) body.files = report.files.map((f) => ({ filename: f.filename, status: f.status }));
  if (report.truncated !== undefined) body.truncated = report.truncated;
  if (report.message !== undefined) body.message = report.message;
  return body;
}
