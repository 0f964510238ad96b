import type Database from 'better-sqlite3';

/** A repository on the code host, checked against the `owner/name` pattern. */
export interface RepoRef {
  readonly owner: string;
  readonly name: string;
}

/** What the tenant file says about its build, or why drift cannot be checked. */
export type BuildInfo =
  | { kind: 'no_build_info'; message: string }
  | { kind: 'no_remote'; buildCommit: string; message: string }
  | { kind: 'comparable'; buildCommit: string; repo: RepoRef; ref: string };

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO_NAME = /^[A-Za-z0-9._-]{1,100}$/;
const COMMIT_SHA = /^[0-9a-f]{7,64}$/i;
const REF = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$/;

/** `owner/name` when `value` is a valid repository name of the code host, else null (nothing else reaches a URL). */
export function parseRepo(value: unknown): RepoRef | null {
  if (typeof value !== 'string') return null;
  const parts = value.trim().split('/');
  if (parts.length !== 2) return null;
  const [owner, name] = parts as [string, string];
  if (!OWNER.test(owner) || !REPO_NAME.test(name) || name === '.' || name === '..') return null;
  return { owner, name };
}

/** True for a branch or tag name git would accept (no `..`, `//`, `@{`, trailing `/`, `.` or `.lock`). */
export function isValidRef(value: string): boolean {
  return REF.test(value) && !value.includes('..') && !value.includes('//') && !value.includes('@{') && !/(\/|\.|\.lock)$/.test(value);
}

/** The `owner/name` text of a repository. */
export const repoText = (repo: RepoRef): string => `${repo.owner}/${repo.name}`;

interface BuildInfoRow {
  kind: unknown;
  repo: unknown;
  ref: unknown;
  commit_sha: unknown;
}

/**
 * Reads the `build_snapshot` and `remote_reference` rows of `build_info` (docs/kls-format.md): a file
 * without the table or the snapshot row, or with a snapshot without a valid commit SHA, is `no_build_info`; no
 * usable remote reference (row missing, repository not `owner/name`, ref not a valid git ref) is `no_remote`.
 * The repository compared is the reference's, else the snapshot's.
 */
export function readBuildInfo(db: Database.Database): BuildInfo {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = 'build_info'").get();
  if (table === undefined) return { kind: 'no_build_info', message: 'The tenant file has no build_info table.' };
  const rows = db
    .prepare("SELECT kind, repo, ref, commit_sha FROM build_info WHERE kind IN ('build_snapshot', 'remote_reference')")
    .all() as BuildInfoRow[];
  const snapshot = rows.find((row) => row.kind === 'build_snapshot');
  const remote = rows.find((row) => row.kind === 'remote_reference');
  if (snapshot === undefined) return { kind: 'no_build_info', message: 'The tenant file records no build_snapshot.' };
  const sha = typeof snapshot.commit_sha === 'string' ? snapshot.commit_sha.trim() : '';
  if (!COMMIT_SHA.test(sha)) return { kind: 'no_build_info', message: 'The build_snapshot row has no valid commit SHA.' };
  if (remote === undefined) return { kind: 'no_remote', buildCommit: sha, message: 'The tenant file records no remote_reference to compare with.' };
  const repo = parseRepo(remote.repo ?? snapshot.repo);
  if (repo === null) {
    return { kind: 'no_remote', buildCommit: sha, message: 'The remote_reference row names no valid repository (owner/name).' };
  }
  const ref = typeof remote.ref === 'string' ? remote.ref.trim() : '';
  if (!isValidRef(ref)) return { kind: 'no_remote', buildCommit: sha, message: 'The remote_reference row names no valid branch or tag (ref).' };
  return { kind: 'comparable', buildCommit: sha, repo, ref };
}
