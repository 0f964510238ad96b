import { expect } from 'chai';
import Database from 'better-sqlite3';
import { isValidRef, parseRepo, readBuildInfo } from '../../src/drift/build-info.js';
import type { CodeHost, CompareOutcome } from '../../src/drift/code-host.js';
import { DRIFT_FAILURE_TTL_MS, DRIFT_RESULT_TTL_MS, DriftCache } from '../../src/drift/drift-cache.js';
import { checkDrift, type DriftReport } from '../../src/drift/drift-check.js';

const SHA = 'c13acd671139470e564e38d234cf1b8fdd50c8d9';

function klsWith(rows: [string, string | null, string | null, string | null][]): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE build_info (kind TEXT PRIMARY KEY, repo TEXT, ref TEXT, commit_sha TEXT, recorded_at TEXT)');
  for (const row of rows) db.prepare('INSERT INTO build_info VALUES (?, ?, ?, ?, NULL)').run(...row);
  return db;
}

describe('drift: build info', () => {
  it('accepts owner/name repositories only', () => {
    expect(parseRepo('kls-demo/kantonsspital-pipeline')).to.deep.equal({ owner: 'kls-demo', name: 'kantonsspital-pipeline' });
    for (const bad of ['kls-demo', 'a/b/c', '../etc', 'owner/..', '-owner/x', 'own er/x', 'owner/x?y', 'owner/x#y', '', null, 42]) {
      expect(parseRepo(bad), String(bad)).to.equal(null);
    }
  });

  it('accepts branch and tag names git accepts', () => {
    for (const ref of ['main', 'release/2026.11', 'v1.2.3', 'feature_x-y']) expect(isValidRef(ref), ref).to.equal(true);
    for (const ref of ['', '../main', 'a..b', 'a//b', 'main/', 'main.lock', 'x@{1}', '-x', 'a b', 'main?x', 'main.']) expect(isValidRef(ref), ref).to.equal(false);
  });

  it('prefers the reference row repository and falls back to the snapshot one', () => {
    const info = readBuildInfo(klsWith([['build_snapshot', 'a/snap', null, SHA], ['remote_reference', null, 'main', null]]));
    expect(info).to.deep.equal({ kind: 'comparable', buildCommit: SHA, repo: { owner: 'a', name: 'snap' }, ref: 'main' });
  });

  it('says no_build_info for a snapshot without a valid commit', () => {
    expect(readBuildInfo(klsWith([['build_snapshot', 'a/b', null, 'not-a-sha']])).kind).to.equal('no_build_info');
    expect(readBuildInfo(klsWith([['remote_reference', 'a/b', 'main', null]])).kind).to.equal('no_build_info');
  });
});

describe('drift: check', () => {
  const host = (outcome: CompareOutcome): CodeHost => ({ compare: async () => outcome });
  const comparable = { kind: 'comparable' as const, buildCommit: SHA, repo: { owner: 'a', name: 'b' }, ref: 'main' };

  it('reports behind when the branches diverged but the remote has commits the build lacks', async () => {
    const commit = { sha: 'f'.repeat(40), author: 'A', date: '2026-11-12T14:03:00Z', message: 'm' };
    const report = await checkDrift(comparable, host({ ok: true, comparison: { aheadBy: 1, headSha: commit.sha, commits: [commit], files: [] } }));
    expect(report).to.deep.include({ status: 'behind', aheadBy: 1, remoteHead: commit.sha, truncated: false });
  });

  it('passes a failure of the host through as its status', async () => {
    const report = await checkDrift(comparable, host({ ok: false, failure: 'fetch_error', message: 'no answer' }));
    expect(report).to.deep.equal({ status: 'fetch_error', repo: 'a/b', buildCommit: SHA, message: 'no answer' });
  });
});

describe('drift: cache', () => {
  let now = 1_000_000;
  const clock = () => now;
  const behind: DriftReport = { status: 'behind', aheadBy: 1 };
  const failed: DriftReport = { status: 'api_error', message: 'x' };

  it('keeps a comparison 5 minutes and a failure 30 seconds', async () => {
    const cache = new DriftCache(clock);
    let calls = 0;
    const check = (report: DriftReport) => async () => {
      calls += 1;
      return report;
    };
    expect((await cache.get('t', 1, check(behind))).maxAgeSeconds).to.equal(DRIFT_RESULT_TTL_MS / 1000);
    now += DRIFT_RESULT_TTL_MS - 1000;
    expect((await cache.get('t', 1, check(behind))).maxAgeSeconds).to.equal(1);
    expect(calls).to.equal(1);
    now += 1000;
    await cache.get('t', 1, check(failed));
    expect(calls).to.equal(2);
    now += DRIFT_FAILURE_TTL_MS - 1;
    expect((await cache.get('t', 1, check(behind))).report.status).to.equal('api_error');
    now += 1;
    expect((await cache.get('t', 1, check(behind))).report.status).to.equal('behind');
    expect(calls).to.equal(3);
  });

  it('checks again for a new generation of the tenant file', async () => {
    const cache = new DriftCache(clock);
    await cache.get('t', 1, async () => behind);
    const next = await cache.get('t', 2, async () => failed);
    expect(next.report.status).to.equal('api_error');
  });

  it('does not keep an unexpected error', async () => {
    const cache = new DriftCache(clock);
    let error: unknown;
    await cache.get('t', 1, async () => Promise.reject(new Error('disk'))).catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(Error);
    expect((await cache.get('t', 1, async () => behind)).report.status).to.equal('behind');
  });
});
