import type { Octokit } from '@octokit/rest';
import { repoText, type RepoRef } from './build-info.js';
import type { CodeHost, ComparedCommit, ComparedFile, CompareOutcome } from './code-host.js';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The GitHub REST compare endpoint (`GET /repos/{owner}/{repo}/compare/{base}...{head}`) through Octokit:
 * 404 → `repo_not_found`, any other HTTP error or an answer of the wrong shape → `api_error`, no answer
 * (network error, abort, or nothing within `timeoutMs`) → `fetch_error`.
 */
export function gitHubCodeHost(octokit: Octokit, timeoutMs: number): CodeHost {
  return {
    async compare(repo, base, head) {
      const signal = AbortSignal.timeout(timeoutMs);
      let timer: NodeJS.Timeout | undefined;
      // The signal ends the fetch; the race also bounds the SDK's own work after it (reading the body).
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs + 50);
      });
      try {
        const call = octokit.rest.repos.compareCommitsWithBasehead({
          owner: repo.owner,
          repo: repo.name,
          basehead: `${base}...${head}`,
          request: { signal },
        });
        call.catch(() => {}); // a late rejection after the deadline must not go unhandled
        const answer = await Promise.race([call, deadline]);
        if (answer === 'timeout' || signal.aborted) return timedOut(timeoutMs);
        return toOutcome(base, answer.data as unknown);
      } catch (err) {
        if (signal.aborted) return timedOut(timeoutMs);
        return fromError(repo, err);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

const timedOut = (timeoutMs: number): CompareOutcome => ({
  ok: false,
  failure: 'fetch_error',
  message: `The code-hosting API did not answer within ${timeoutMs} ms.`,
});

function fromError(repo: RepoRef, err: unknown): CompareOutcome {
  const error = err as { name?: unknown; status?: unknown; response?: { data?: unknown } };
  if (error?.name === 'AbortError' || error?.name === 'TimeoutError') {
    return { ok: false, failure: 'fetch_error', message: 'The call to the code-hosting API was aborted.' };
  }
  if (typeof error?.status === 'number' && error.response !== undefined) {
    if (error.status === 404) {
      return { ok: false, failure: 'repo_not_found', message: `The code host knows no repository ${repoText(repo)}, or not the commits compared (HTTP 404).` };
    }
    const said = hostMessage(error.response.data);
    return { ok: false, failure: 'api_error', message: `The code-hosting API answered HTTP ${error.status}${said === null ? '' : `: ${said}`}.` };
  }
  // Octokit reports a network failure as a RequestError without a response: that is fetch_error, not api_error.
  const code = networkCode(err);
  return { ok: false, failure: 'fetch_error', message: `The code-hosting API could not be reached${code === null ? '' : ` (${code})`}.` };
}

function hostMessage(data: unknown): string | null {
  const message = (data as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.trim() !== '' ? message.trim().slice(0, 200).replace(/\.$/, '') : null;
}

function networkCode(err: unknown): string | null {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]{3,40}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

const unexpected = (what: string): CompareOutcome => ({ ok: false, failure: 'api_error', message: `The code-hosting API answered in an unexpected shape (${what}).` });

function toOutcome(base: string, data: unknown): CompareOutcome {
  if (data === null || typeof data !== 'object') return unexpected('no JSON object');
  const body = data as { ahead_by?: unknown; commits?: unknown; files?: unknown; merge_base_commit?: { sha?: unknown } | null };
  if (typeof body.ahead_by !== 'number' || !Number.isInteger(body.ahead_by) || body.ahead_by < 0) return unexpected('ahead_by');
  if (!Array.isArray(body.commits)) return unexpected('commits');
  const commits: ComparedCommit[] = [];
  for (const item of body.commits) {
    const commit = toCommit(item);
    if (commit === null) return unexpected('a commit');
    commits.push(commit);
  }
  const files: ComparedFile[] = [];
  for (const item of Array.isArray(body.files) ? body.files : []) {
    const file = item as { filename?: unknown; status?: unknown } | null;
    if (typeof file?.filename !== 'string' || typeof file.status !== 'string') return unexpected('a file');
    files.push({ filename: file.filename, status: file.status });
  }
  // Without paging parameters GitHub lists the most recent commit last; with nothing ahead, the head is the
  // merge base (the head is the base or one of its ancestors).
  let headSha: string;
  if (body.ahead_by > 0) {
    const last = commits[commits.length - 1];
    if (last === undefined) return unexpected('ahead_by > 0 without commits');
    headSha = last.sha;
  } else {
    const mergeBase = body.merge_base_commit?.sha;
    headSha = typeof mergeBase === 'string' && mergeBase !== '' ? mergeBase : base;
  }
  return { ok: true, comparison: { aheadBy: body.ahead_by, headSha, commits, files } };
}

function toCommit(item: unknown): ComparedCommit | null {
  const entry = item as {
    sha?: unknown;
    author?: { login?: unknown } | null;
    commit?: { author?: { name?: unknown; date?: unknown } | null; committer?: { name?: unknown; date?: unknown } | null; message?: unknown };
  } | null;
  if (typeof entry?.sha !== 'string' || entry.commit === undefined || entry.commit === null) return null;
  const { author, committer, message } = entry.commit;
  const name = [author?.name, committer?.name, entry.author?.login].find((n): n is string => typeof n === 'string' && n !== '');
  const date = [author?.date, committer?.date].find((d): d is string => typeof d === 'string' && ISO_DATE_TIME.test(d));
  if (date === undefined) return null;
  return { sha: entry.sha, author: name ?? 'unknown', date, message: typeof message === 'string' ? message : '' };
}
