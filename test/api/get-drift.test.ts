import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addTenantWithBuildInfo, rewriteBuildInfo } from '../helpers/build-info-tenants.js';
import { demoRepoBehaviours, fakeHistory, fakeSha, startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { call, expectProblem } from '../helpers/http.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const SHA = fakeSha('test-build');
const remote = (repo: string) => [
  { kind: 'build_snapshot', repo, ref: null, commit_sha: SHA },
  { kind: 'remote_reference', repo, ref: 'main', commit_sha: null },
];

function buildCommitOf(dataDir: string, pack: string, slug: string): string {
  const db = new Database(path.join(dataDir, 'kls', pack, slug, 'kls.sqlite'), { readonly: true });
  try {
    return (db.prepare("SELECT commit_sha FROM build_info WHERE kind = 'build_snapshot'").get() as { commit_sha: string }).commit_sha;
  } finally {
    db.close();
  }
}

async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('GET /api/drift', () => {
  const data = tempDir('ads-drift-');
  let github: FakeGitHub;
  let server: TestServer;
  const requestsFor = (repo: string) => github.requests.filter((r) => r.url.startsWith(`/repos/${repo}/compare/`));

  before(async () => {
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    github = await startFakeGitHub(demoRepoBehaviours(path.join(data.dir, 'kls')));
    addTenantWithBuildInfo(data.dir, 'test', 'no-table', null);
    addTenantWithBuildInfo(data.dir, 'test', 'missing', remote('kls-demo/missing'));
    addTenantWithBuildInfo(data.dir, 'test', 'broken-api', remote('kls-demo/broken'));
    addTenantWithBuildInfo(data.dir, 'test', 'long', remote('kls-demo/long'));
    addTenantWithBuildInfo(data.dir, 'test', 'bad-repo', remote('../../etc/passwd'));
    addTenantWithBuildInfo(data.dir, 'test', 'bad-ref', [remote('kls-demo/long')[0]!, { kind: 'remote_reference', repo: 'kls-demo/long', ref: 'main/../x', commit_sha: null }]);
    addTenantWithBuildInfo(data.dir, 'test', 'shared', remote('kls-demo/shared'));
    addTenantWithBuildInfo(data.dir, 'test', 'flaky', remote('kls-demo/flaky'));
    github.repos.set('kls-demo/broken', { kind: 'status', status: 500, message: 'Server Error' });
    github.repos.set('kls-demo/flaky', { kind: 'status', status: 403, message: 'API rate limit exceeded' });
    const many = fakeHistory(SHA, 260);
    const files = Array.from({ length: 310 }, (_, i) => ({ filename: `signals/probe_${i}.yaml`, status: i % 3 === 0 ? 'added' : 'modified' }));
    github.repos.set('kls-demo/long', { kind: 'history', base: SHA, ref: 'main', commits: many, files });
    github.repos.set('kls-demo/shared', { kind: 'history', base: SHA, ref: 'main', commits: fakeHistory(SHA, 3), files: [] });
    server = await startTestServer({ dataDir: data.dir, env: { GITHUB_API_URL: github.url, GITHUB_TOKEN: 'ghp_test_token_123' } });
  });
  after(async () => {
    await server.close();
    await github.close();
    data.remove();
  });

  it('answers behind with the commits and files the remote has beyond the build commit', async () => {
    const build = buildCommitOf(data.dir, 'ost', 'kantonsspital');
    const res = await call(server.url, '/api/drift?tenant=kantonsspital');
    expect(res.status).to.equal(200);
    const head = fakeSha(`${build}:1`);
    expect(res.body).to.deep.equal({
      status: 'behind',
      repo: 'kls-demo/kantonsspital-pipeline',
      build_commit: build,
      remote_head: head,
      ahead_by: 1,
      commits: [{ sha: head, author: 'Lukas Meier', date: '2026-11-12T14:03:00Z', message: 'Add late-billing signal to the October run' }],
      files: [{ filename: 'signals/probe_late_billing.yaml', status: 'added' }],
      truncated: false,
    });
    expect(res.headers.get('cache-control')).to.match(/^private, max-age=(29\d|300)$/);
    const [sent] = requestsFor('kls-demo/kantonsspital-pipeline');
    expect(sent?.method).to.equal('GET');
    expect(decodeURIComponent(sent!.url)).to.equal(`/repos/kls-demo/kantonsspital-pipeline/compare/${build}...main`);
    expect(sent!.headers.authorization).to.match(/ghp_test_token_123$/);
  });

  it('serves a second call from the cache without reaching the API', async () => {
    const before = requestsFor('kls-demo/kantonsspital-pipeline').length;
    const res = await call(server.url, '/api/drift?tenant=ost.kantonsspital');
    expect(res.body.status).to.equal('behind');
    expect(requestsFor('kls-demo/kantonsspital-pipeline').length).to.equal(before);
  });

  it('shares one outbound call among concurrent requests', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => call(server.url, '/api/drift?tenant=test.shared')));
    expect(answers.map((a) => a.body.ahead_by)).to.deep.equal([3, 3, 3]);
    expect(requestsFor('kls-demo/shared')).to.have.length(1);
  });

  it('answers in_sync when the remote reference has nothing the build lacks', async () => {
    const build = buildCommitOf(data.dir, 'west', 'rehaklinik');
    const res = await call(server.url, '/api/drift?tenant=west.rehaklinik');
    expect(res.body).to.deep.equal({
      status: 'in_sync', repo: 'kls-demo/rehaklinik-pipeline', build_commit: build, remote_head: build, ahead_by: 0, commits: [], files: [], truncated: false,
    });
  });

  it('answers no_remote without a remote_reference row, and calls no API', async () => {
    const before = github.requests.length;
    const res = await call(server.url, '/api/drift?tenant=ost.rehaklinik');
    expect(res.body.status).to.equal('no_remote');
    expect(res.body.build_commit).to.equal(buildCommitOf(data.dir, 'ost', 'rehaklinik'));
    expect(res.body.message).to.be.a('string');
    expect(res.headers.get('cache-control')).to.match(/^private, max-age=(2\d|30)$/);
    expect(github.requests.length).to.equal(before);
  });

  it('answers no_remote for a repository or ref that is not valid, before any URL is built', async () => {
    const before = github.requests.length;
    const badRepo = await call(server.url, '/api/drift?tenant=test.bad-repo');
    expect(badRepo.body).to.include({ status: 'no_remote', build_commit: SHA });
    expect(badRepo.body.message).to.match(/owner\/name/);
    const badRef = await call(server.url, '/api/drift?tenant=test.bad-ref');
    expect(badRef.body.status).to.equal('no_remote');
    expect(github.requests.length).to.equal(before);
  });

  it('answers no_build_info for an empty build_info table and for a file without the table', async () => {
    const empty = await call(server.url, '/api/drift?tenant=hopital-cantonal');
    expect(empty.body.status).to.equal('no_build_info');
    expect(empty.body).to.have.keys('status', 'message');
    const noTable = await call(server.url, '/api/drift?tenant=test.no-table');
    expect(noTable.body.status).to.equal('no_build_info');
    expect(noTable.body.message).to.match(/no build_info table/);
  });

  it('answers repo_not_found when the API answers 404', async () => {
    const res = await call(server.url, '/api/drift?tenant=test.missing');
    expect(res.body).to.include({ status: 'repo_not_found', repo: 'kls-demo/missing', build_commit: SHA });
    expect(requestsFor('kls-demo/missing')).to.have.length(1);
  });

  it('answers api_error for another HTTP error, and caches the failure briefly', async () => {
    const res = await call(server.url, '/api/drift?tenant=test.broken-api');
    expect(res.body).to.include({ status: 'api_error', repo: 'kls-demo/broken' });
    expect(res.body.message).to.match(/HTTP 500/);
    expect(res.headers.get('cache-control')).to.match(/^private, max-age=(2\d|30)$/);
    const rate = await call(server.url, '/api/drift?tenant=test.flaky');
    expect(rate.body.message).to.match(/HTTP 403: API rate limit exceeded/);
    // the API recovers, but the failure is served from the cache for its 30 s
    github.repos.set('kls-demo/flaky', { kind: 'history', base: SHA, ref: 'main', commits: [], files: [] });
    const again = await call(server.url, '/api/drift?tenant=test.flaky');
    expect(again.body.status).to.equal('api_error');
    expect(requestsFor('kls-demo/flaky')).to.have.length(1);
  });

  it('caps commits at 250 (the most recent) and files at 300, and says so with truncated', async () => {
    const res = await call(server.url, '/api/drift?tenant=test.long');
    expect(res.body.status).to.equal('behind');
    expect(res.body.ahead_by).to.equal(260);
    expect(res.body.commits).to.have.length(250);
    expect(res.body.files).to.have.length(300);
    expect(res.body.truncated).to.equal(true);
    expect(res.body.commits[249].sha).to.equal(res.body.remote_head);
    expect(res.body.commits[0].message).to.equal('Pipeline change 11');
  });

  it('checks a swapped tenant file afresh instead of serving the old result', async () => {
    const file = path.join(data.dir, 'kls', 'test', 'shared', 'kls.sqlite');
    const copy = `${file}.new`;
    fs.copyFileSync(file, copy);
    rewriteBuildInfo(copy, remote('kls-demo/missing'));
    fs.renameSync(copy, file);
    const status = await call(server.url, '/api/db-status/test.shared');
    expect(status.body.generation).to.equal(2);
    const res = await call(server.url, '/api/drift?tenant=test.shared');
    expect(res.body.status).to.equal('repo_not_found');
  });

  it('answers 400 without a tenant, 404 for an unknown one and 409 for an ambiguous slug', async () => {
    expectProblem(await call(server.url, '/api/drift'), 400);
    expectProblem(await call(server.url, '/api/drift?tenant=no-such-tenant'), 404);
    expectProblem(await call(server.url, '/api/drift?tenant=rehaklinik'), 409);
  });

  it('answers 503 when the tenant file cannot be opened', async () => {
    const dir = path.join(data.dir, 'kls', 'test', 'kaputt');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'kls.sqlite'), 'not a database\n'.repeat(100));
    server.deps.tenants.scanLocal();
    const res = await call(server.url, '/api/drift?tenant=test.kaputt');
    expectProblem(res, 503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
  });
});

describe('GET /api/drift without an answering API', () => {
  let github: FakeGitHub;
  let slow: TestServer;
  let unreachable: TestServer;

  before(async () => {
    github = await startFakeGitHub();
    github.repos.set('kls-demo/kantonsspital-pipeline', { kind: 'hang' });
    slow = await startTestServer({ env: { GITHUB_API_URL: github.url, DRIFT_TIMEOUT_MS: '300' } });
    unreachable = await startTestServer({ env: { GITHUB_API_URL: `http://127.0.0.1:${await closedPort()}` } });
  });
  after(async () => {
    await slow.close();
    await unreachable.close();
    await github.close();
  });

  // the API never answers: only the server's own deadline can end the request (the test's timeout catches a hang)
  it('answers fetch_error naming DRIFT_TIMEOUT_MS when the API does not answer', async () => {
    const res = await call(slow.url, '/api/drift?tenant=kantonsspital');
    expect(res.body).to.include({ status: 'fetch_error', repo: 'kls-demo/kantonsspital-pipeline' });
    expect(res.body.message).to.match(/within 300 ms/);
    expect(github.requests).to.have.length(1);
    expect(github.requests[0]!.headers.authorization).to.equal(undefined);
  });

  it('answers fetch_error when the host cannot be reached', async () => {
    const res = await call(unreachable.url, '/api/drift?tenant=kantonsspital');
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('fetch_error');
    expect(res.body.message).to.match(/could not be reached/);
  });
});
