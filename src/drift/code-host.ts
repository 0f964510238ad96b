import type { RepoRef } from './build-info.js';

/** A commit on the compared range, as the code host reports it. */
export interface ComparedCommit {
  readonly sha: string;
  readonly author: string;
  readonly date: string;
  readonly message: string;
}

/** A file changed between base and head. */
export interface ComparedFile {
  readonly filename: string;
  readonly status: string;
}

/** The code host's comparison of `base...head`, already checked for shape. */
export interface Comparison {
  /** Commits the head has that the base has not. */
  readonly aheadBy: number;
  /** The commit the head reference points to. */
  readonly headSha: string;
  /** Oldest first, as many as the host lists (GitHub: at most 250, the most recent last). */
  readonly commits: readonly ComparedCommit[];
  /** As many as the host lists (GitHub: at most 300). */
  readonly files: readonly ComparedFile[];
}

/** Failure kinds of a comparison, named as the drift statuses they become. */
export type CompareFailure = 'repo_not_found' | 'api_error' | 'fetch_error';

/** A comparison, or a failure with a message fit for clients (never a token or a stack). */
export type CompareOutcome = { ok: true; comparison: Comparison } | { ok: false; failure: CompareFailure; message: string };

/** Port to the code-hosting API; implementations translate their SDK's errors and never throw. */
export interface CodeHost {
  compare(repo: RepoRef, base: string, head: string): Promise<CompareOutcome>;
}
