import type { BuildInfo } from './build-info.js';
import { repoText } from './build-info.js';
import type { CodeHost, ComparedCommit, ComparedFile } from './code-host.js';

/** At most this many commits are reported (the most recent ones). */
export const MAX_DRIFT_COMMITS = 250;
/** At most this many changed files are reported; GitHub itself lists no more than 300. */
export const MAX_DRIFT_FILES = 300;

/** Drift statuses (`status` of the contract's `DriftResult`). */
export type DriftStatus = 'in_sync' | 'behind' | 'no_build_info' | 'no_remote' | 'repo_not_found' | 'api_error' | 'fetch_error';

/** The outcome of one drift check; which members are set depends on `status` (see openapi.yaml DriftResult). */
export interface DriftReport {
  status: DriftStatus;
  repo?: string;
  buildCommit?: string;
  remoteHead?: string;
  aheadBy?: number;
  commits?: ComparedCommit[];
  files?: ComparedFile[];
  truncated?: boolean;
  message?: string;
}

/** True for the statuses that come from a successful comparison (cached longer). */
export const isComparedStatus = (status: DriftStatus): boolean => status === 'in_sync' || status === 'behind';

/** Compares the build commit with the remote reference through `codeHost` (the description of GET /api/drift in openapi.yaml). */
export async function checkDrift(buildInfo: BuildInfo, codeHost: CodeHost): Promise<DriftReport> {
  if (buildInfo.kind === 'no_build_info') return { status: 'no_build_info', message: buildInfo.message };
  if (buildInfo.kind === 'no_remote') return { status: 'no_remote', buildCommit: buildInfo.buildCommit, message: buildInfo.message };
  const repo = repoText(buildInfo.repo);
  const outcome = await codeHost.compare(buildInfo.repo, buildInfo.buildCommit, buildInfo.ref);
  if (!outcome.ok) return { status: outcome.failure, repo, buildCommit: buildInfo.buildCommit, message: outcome.message };
  const { aheadBy, headSha, commits, files } = outcome.comparison;
  const keptCommits = commits.slice(Math.max(0, commits.length - MAX_DRIFT_COMMITS));
  const keptFiles = files.slice(0, MAX_DRIFT_FILES);
  return {
    status: aheadBy === 0 ? 'in_sync' : 'behind',
    repo,
    buildCommit: buildInfo.buildCommit,
    remoteHead: headSha,
    aheadBy,
    commits: aheadBy === 0 ? [] : keptCommits,
    files: aheadBy === 0 ? [] : keptFiles,
    // A list of exactly MAX_DRIFT_FILES may have been cut by the host itself.
    truncated: aheadBy > 0 && (aheadBy > keptCommits.length || files.length >= MAX_DRIFT_FILES),
  };
}
