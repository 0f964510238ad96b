import type { components } from '../generated/openapi.js';
import type { Deps } from '../src/ports.js';
import { readBuildInfo, type BuildInfo } from '../src/drift/build-info.js';
import type { DriftReport } from '../src/drift/drift-check.js';
import type { Input, Result } from '../src/http/contract.js';

type DriftResult = components['schemas']['DriftResult'];

/** GET /api/drift: the build commit against the remote reference, cached per tenant and file generation. */
export async function getDrift(input: Input<'getDrift'>, deps: Deps): Promise<Result<'getDrift'>> {
  const entry = deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  const lease = await deps.tenants.lease(entry);
  let buildInfo: BuildInfo;
  try {
    buildInfo = readBuildInfo(lease.db);
  } finally {
    // the outbound call must not keep a swapped-out file open
    lease.release();
  }
  const { report, maxAgeSeconds } = await deps.drift.report(entry.compositeId, lease.generation, buildInfo);
  return { status: 200, body: toApiDrift(report), headers: { 'Cache-Control': `private, max-age=${maxAgeSeconds}` } };
}

/** The contract's DriftResult: only the members set for the report's status. */
function toApiDrift(report: DriftReport): DriftResult {
  const body: DriftResult = { status: report.status };
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
