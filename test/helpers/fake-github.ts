// A local HTTP server answering GitHub's REST compare endpoint in GitHub's wire format
// (`GET /repos/{owner}/{repo}/compare/{base}...{head}`), for tests and the Dredd run. It records every request.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';

/** One commit of a fake repository's history. */
export interface FakeCommit {
  sha: string;
  author: string;
  date: string;
  message: string;
}

/** How the fake answers for one repository. */
export type FakeRepoBehaviour =
  /** `commits` are on `ref` after `base`, oldest first; `files` changed between the two. */
  | { kind: 'history'; base: string; ref: string; commits: FakeCommit[]; files: { filename: string; status: string }[] }
  /** Answers this HTTP status with a GitHub error body. */
  | { kind: 'status'; status: number; message: string }
  /** Accepts the connection and never answers. */
  | { kind: 'hang' };

/** A request the fake received. */
export interface RecordedGitHubRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** GitHub's own limits on one compare answer without paging parameters. */
const GITHUB_COMMIT_LIMIT = 250;
const GITHUB_FILE_LIMIT = 300;

/** A running fake GitHub API. */
export interface FakeGitHub {
  readonly url: string;
  readonly requests: RecordedGitHubRequest[];
  /** Behaviour per `owner/name`; repositories not listed answer 404 like GitHub. */
  readonly repos: Map<string, FakeRepoBehaviour>;
  close(): Promise<void>;
}

/** A deterministic 40-hex sha for test commits. */
export const fakeSha = (seed: string): string => createHash('sha1').update(seed).digest('hex');

/** `count` commits after `base`, one a day from 2026-11-02, oldest first. */
export function fakeHistory(base: string, count: number): FakeCommit[] {
  return Array.from({ length: count }, (_, i) => ({
    sha: fakeSha(`${base}:${i + 1}`),
    author: i % 2 === 0 ? 'Lukas Meier' : 'Anna Muster',
    date: new Date(Date.UTC(2026, 10, 2) + i * 3_600_000).toISOString().replace('.000Z', 'Z'),
    message: `Pipeline change ${i + 1}`,
  }));
}

/**
 * Behaviours for the repositories the demo tenants under `klsDir` name: `ost.kantonsspital`'s remote is one
 * commit ahead of its build (the contract example), every other compared repository is in sync.
 */
export function demoRepoBehaviours(klsDir: string): [string, FakeRepoBehaviour][] {
  const behaviours: [string, FakeRepoBehaviour][] = [];
  for (const pack of fs.readdirSync(klsDir)) {
    for (const slug of fs.existsSync(path.join(klsDir, pack)) ? fs.readdirSync(path.join(klsDir, pack)) : []) {
      const file = path.join(klsDir, pack, slug, 'kls.sqlite');
      let rows: { kind: string; repo: string | null; ref: string | null; commit_sha: string | null }[];
      try {
        const db = new Database(file, { readonly: true, fileMustExist: true });
        try {
          rows = db.prepare('SELECT kind, repo, ref, commit_sha FROM build_info').all() as typeof rows;
        } finally {
          db.close();
        }
      } catch {
        continue; // not a KLS, or no build_info
      }
      const snapshot = rows.find((r) => r.kind === 'build_snapshot');
      const remote = rows.find((r) => r.kind === 'remote_reference');
      if (snapshot?.commit_sha == null || remote?.ref == null) continue;
      const repo = remote.repo ?? snapshot.repo;
      if (repo === null) continue;
      const ahead = `${pack}.${slug}` === 'ost.kantonsspital';
      behaviours.push([
        repo,
        {
          kind: 'history',
          base: snapshot.commit_sha,
          ref: remote.ref,
          commits: ahead ? [{ sha: fakeSha(`${snapshot.commit_sha}:1`), author: 'Lukas Meier', date: '2026-11-12T14:03:00Z', message: 'Add late-billing signal to the October run' }] : [],
          files: ahead ? [{ filename: 'signals/probe_late_billing.yaml', status: 'added' }] : [],
        },
      ]);
    }
  }
  return behaviours;
}

function commitJson(owner: string, repo: string, commit: FakeCommit, parent: string): Record<string, unknown> {
  const apiBase = `https://api.github.com/repos/${owner}/${repo}`;
  const person = { name: commit.author, email: `${commit.author.toLowerCase().replace(/\s+/g, '.')}@example.org`, date: commit.date };
  return {
    sha: commit.sha,
    node_id: `C_${commit.sha.slice(0, 20)}`,
    commit: {
      author: person,
      committer: person,
      message: commit.message,
      tree: { sha: fakeSha(`tree:${commit.sha}`), url: `${apiBase}/git/trees/${fakeSha(`tree:${commit.sha}`)}` },
      url: `${apiBase}/git/commits/${commit.sha}`,
      comment_count: 0,
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
    },
    url: `${apiBase}/commits/${commit.sha}`,
    html_url: `https://github.com/${owner}/${repo}/commit/${commit.sha}`,
    comments_url: `${apiBase}/commits/${commit.sha}/comments`,
    author: null,
    committer: null,
    parents: [{ sha: parent, url: `${apiBase}/commits/${parent}`, html_url: `https://github.com/${owner}/${repo}/commit/${parent}` }],
  };
}

function compareJson(owner: string, repo: string, behaviour: Extract<FakeRepoBehaviour, { kind: 'history' }>): Record<string, unknown> {
  const { base, commits, files } = behaviour;
  const listed = commits.slice(Math.max(0, commits.length - GITHUB_COMMIT_LIMIT));
  const baseCommit = { sha: base, author: 'Build Robot', date: '2026-11-01T06:00:00Z', message: 'Build snapshot' };
  const apiBase = `https://api.github.com/repos/${owner}/${repo}`;
  return {
    url: `${apiBase}/compare/${base}...${behaviour.ref}`,
    html_url: `https://github.com/${owner}/${repo}/compare/${base}...${behaviour.ref}`,
    permalink_url: `https://github.com/${owner}/${repo}/compare/${owner}:${base.slice(0, 7)}...${owner}:${(commits.at(-1)?.sha ?? base).slice(0, 7)}`,
    diff_url: `https://github.com/${owner}/${repo}/compare/${base}...${behaviour.ref}.diff`,
    patch_url: `https://github.com/${owner}/${repo}/compare/${base}...${behaviour.ref}.patch`,
    base_commit: commitJson(owner, repo, baseCommit, fakeSha(`parent:${base}`)),
    merge_base_commit: commitJson(owner, repo, baseCommit, fakeSha(`parent:${base}`)),
    status: commits.length === 0 ? 'identical' : 'ahead',
    ahead_by: commits.length,
    behind_by: 0,
    total_commits: commits.length,
    commits: listed.map((c, i) => commitJson(owner, repo, c, i === 0 ? base : listed[i - 1]!.sha)),
    files: files.slice(0, GITHUB_FILE_LIMIT).map((f, i) => ({
      sha: fakeSha(`blob:${f.filename}`),
      filename: f.filename,
      status: f.status,
      additions: i + 1,
      deletions: 0,
      changes: i + 1,
      blob_url: `https://github.com/${owner}/${repo}/blob/${behaviour.ref}/${f.filename}`,
      raw_url: `https://github.com/${owner}/${repo}/raw/${behaviour.ref}/${f.filename}`,
      contents_url: `${apiBase}/contents/${f.filename}?ref=${behaviour.ref}`,
      patch: '@@ -0,0 +1 @@\n+changed',
    })),
  };
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-github-media-type': 'github.v3; format=json',
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '59',
  });
  res.end(text);
}

const notFound = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/commits/commits#compare-two-commits', status: '404' };

/** Starts the fake on 127.0.0.1 and an ephemeral port. */
export async function startFakeGitHub(repos: Iterable<[string, FakeRepoBehaviour]> = []): Promise<FakeGitHub> {
  const requests: RecordedGitHubRequest[] = [];
  const behaviours = new Map(repos);
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const match = /^\/repos\/([^/]+)\/([^/]+)\/compare\/([^?]+)$/.exec(req.url ?? '');
    if (req.method !== 'GET' || match === null) return send(res, 404, notFound);
    const [, owner, repo, basehead] = match as unknown as [string, string, string, string];
    const behaviour = behaviours.get(`${owner}/${repo}`);
    if (behaviour === undefined) return send(res, 404, notFound);
    if (behaviour.kind === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (behaviour.kind === 'status') {
      return send(res, behaviour.status, { message: behaviour.message, documentation_url: 'https://docs.github.com/rest', status: String(behaviour.status) });
    }
    const [base, head] = decodeURIComponent(basehead).split('...');
    if (base !== behaviour.base || head !== behaviour.ref) return send(res, 404, { ...notFound, message: `No commit found for SHA: ${base}` });
    return send(res, 200, compareJson(owner, repo, behaviour));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    repos: behaviours,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
