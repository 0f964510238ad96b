import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';
import { checkCompatibility, listReleases } from '../../contract/compat/releases.js';
import { formatVersion, nextVersion } from '../../contract/compat/semver.js';
import { tempDir } from '../helpers/server.js';

const root = process.cwd();

/** The latest release of this repository and the patch version after it (a version that allows no breaking change). */
const latest = listReleases(root).at(-1)!;
const LATEST = formatVersion(latest.version);
const PATCH = formatVersion({ ...latest.version, patch: latest.version.patch + 1 });
const BREAKING = formatVersion(nextVersion(latest.version, 'breaking'));

/**
 * A copy of what the check reads (openapi.yaml, CHANGELOG.md, contract/releases/) in a temporary folder, its
 * openapi.yaml the latest release's and its CHANGELOG.md without an Unreleased section (`asReleased`), so that
 * the cases below hold whatever the next version holds.
 */
function copyOfRepository(asReleased = true): { dir: string; remove: () => void } {
  const work = tempDir('ads-compat-');
  for (const file of ['openapi.yaml', 'CHANGELOG.md']) fs.copyFileSync(path.join(root, file), path.join(work.dir, file));
  fs.cpSync(path.join(root, 'contract', 'releases'), path.join(work.dir, 'contract', 'releases'), { recursive: true });
  if (asReleased) {
    fs.copyFileSync(latest.file, path.join(work.dir, 'openapi.yaml'));
    // and CHANGELOG.md without the next version's section, which the cases write themselves
    const changelog = path.join(work.dir, 'CHANGELOG.md');
    fs.writeFileSync(changelog, fs.readFileSync(changelog, 'utf8').replace(/^## \d+\.\d+\.\d+ — Unreleased\n[\s\S]*?(?=^## )/m, ''));
  }
  return work;
}

/** Puts `section` (a version's heading and entries) before the newest section of CHANGELOG.md in `dir`. */
function addSection(dir: string, section: string): void {
  const file = path.join(dir, 'CHANGELOG.md');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^## (?=\d+\.\d+\.\d+ — )/m, `${section}\n\n## `));
}

/** Rewrites openapi.yaml in `dir` through `change` (on the parsed document). */
function changeContract(dir: string, change: (doc: any) => void): void {
  const file = path.join(dir, 'openapi.yaml');
  const doc = YAML.parse(fs.readFileSync(file, 'utf8'));
  change(doc);
  fs.writeFileSync(file, YAML.stringify(doc));
}

/** Runs `script` of scripts/ with tsx in `cwd`: its exit status and output. */
function runScript(script: string, cwd: string, args: string[] = []): { status: number | null; output: string } {
  // tsx is resolved from the repository: `cwd` has no node_modules
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, path.join(root, 'scripts', script), ...args], { cwd, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const patchVersion = (doc: any) => (doc.info.version = PATCH);
const schemas = (doc: any) => doc.components.schemas;

describe('the contract against its releases (npm run test:compat)', function () {
  this.timeout(60_000);
  let work: { dir: string; remove: () => void };
  beforeEach(() => {
    work = copyOfRepository();
  });
  afterEach(() => work.remove());

  it("passes this repository's openapi.yaml, CHANGELOG.md and releases", () => {
    const repository = copyOfRepository(false);
    try {
      expect(checkCompatibility(repository.dir).violations.map((v) => v.message)).to.deep.equal([]);
    } finally {
      repository.remove();
    }
  });

  it('keeps each release as it was: 0.2.0 is the contract of commit 2c57d6f', () => {
    const show = spawnSync('git', ['show', '2c57d6f:openapi.yaml'], { cwd: root, encoding: 'utf8' });
    expect(show.status, show.stderr).to.equal(0);
    expect(fs.readFileSync(path.join(root, 'contract', 'releases', '0.2.0.yaml'), 'utf8')).to.equal(show.stdout);
  });

  it('compares openapi.yaml at the version of the latest release with it, and that release with the one before', () => {
    const compared = checkCompatibility(work.dir).compared.map((pair) => `${pair.from} → ${pair.to}`);
    const before = listReleases(root).at(-2);
    expect(compared).to.deep.equal([`${LATEST} → openapi.yaml`, ...(before === undefined ? [] : [`${formatVersion(before.version)} → contract/releases/${LATEST}.yaml`])]);
  });

  for (const [title, change, expected] of [
    [
      'a response property removed',
      (doc: any) => {
        delete schemas(doc).TaxonomyFanout.properties.mean;
        schemas(doc).TaxonomyFanout.required = schemas(doc).TaxonomyFanout.required.filter((name: string) => name !== 'mean');
      },
      `GET /{tenant}/taxonomies/cardinality/fanout — response 200 (application/json): property \`mean\` removed [breaking, rule response-property-removed]: breaking change needs version ${BREAKING} or later (${LATEST} → ${PATCH})`,
    ],
    [
      'a required request field added',
      (doc: any) => {
        schemas(doc).CreateViewRequest.properties.owner = { type: 'string' };
        schemas(doc).CreateViewRequest.required.push('owner');
      },
      `POST /api/views — request body (application/json): required \`owner\` added [breaking, rule request-property-required]: breaking change needs version ${BREAKING} or later (${LATEST} → ${PATCH})`,
    ],
    [
      'an enum value renamed',
      (doc: any) => (schemas(doc).CardinalityDetail.properties.relation.enum[0] = 'one_one'),
      `GET /{tenant}/taxonomies/cardinality/detail — response 200 (application/json): \`relation\` enum value "one_to_one" → "one_one" changed [breaking, rule enum-value-renamed]: breaking change needs version ${BREAKING} or later (${LATEST} → ${PATCH})`,
    ],
  ] as const) {
    it(`fails on ${title} without the version it needs, naming the change, and exits 1`, () => {
      changeContract(work.dir, (doc) => (change(doc), patchVersion(doc)));
      const messages = checkCompatibility(work.dir).violations.map((v) => v.message);
      expect(messages).to.include(`${LATEST} → openapi.yaml: ${expected}`);
      const run = runScript('check-compat.ts', work.dir);
      expect(run.status, run.output).to.equal(1);
      expect(run.output).to.include(`✗ ${LATEST} → openapi.yaml: ${expected}`);
    });
  }

  it('fails when openapi.yaml changes but keeps the version of a release', () => {
    changeContract(work.dir, (doc) => (schemas(doc).TaxonomyFanout.properties.median = { type: 'number' }));
    const messages = checkCompatibility(work.dir).violations.map((v) => v.message);
    expect(messages[0]).to.equal(`openapi.yaml differs from the release ${LATEST}: the contract changed since release ${LATEST} but info.version is ${LATEST}: a change needs a newer version`);
  });

  it('passes a change of a new version listed in its CHANGELOG section', () => {
    changeContract(work.dir, (doc) => ((doc.info.version = PATCH), (schemas(doc).TaxonomyFanout.properties.median = { type: 'number' })));
    addSection(work.dir, `## ${PATCH} — Unreleased\n\n### Added\n- \`GET /{tenant}/taxonomies/cardinality/fanout\`: \`median\`.`);
    expect(checkCompatibility(work.dir).violations.map((v) => v.message)).to.deep.equal([]);
  });
});

describe('the release script (npm run release:contract)', function () {
  this.timeout(60_000);
  let work: { dir: string; remove: () => void };
  beforeEach(() => {
    work = copyOfRepository();
  });
  afterEach(() => work.remove());
  const released = (version: string) => path.join(work.dir, 'contract', 'releases', `${version}.yaml`);

  it('refuses a version released already, and redoes it with --replace', () => {
    fs.appendFileSync(path.join(work.dir, 'openapi.yaml'), '# a comment that changes the bytes\n');
    const refused = runScript('release-contract.ts', work.dir);
    expect(refused.status).to.equal(1);
    expect(refused.output).to.include(`release refused: contract/releases/${LATEST}.yaml exists`);
    expect(fs.readFileSync(released(LATEST), 'utf8')).to.equal(fs.readFileSync(latest.file, 'utf8'));
    const redone = runScript('release-contract.ts', work.dir, ['--replace']);
    expect(redone.status, redone.output).to.equal(0);
    expect(fs.readFileSync(released(LATEST), 'utf8')).to.equal(fs.readFileSync(path.join(work.dir, 'openapi.yaml'), 'utf8'));
  });

  it('releases a new version: copies openapi.yaml byte for byte and dates its CHANGELOG heading with the date given', () => {
    changeContract(work.dir, (doc) => ((doc.info.version = PATCH), (schemas(doc).TaxonomyFanout.properties.median = { type: 'number' })));
    const changelogFile = path.join(work.dir, 'CHANGELOG.md');
    addSection(work.dir, `## ${PATCH} — Unreleased\n\n### Added\n- \`TaxonomyFanout.median\`.`);
    const misdated = runScript('release-contract.ts', work.dir, ['--date', '2026-02-30']);
    expect(misdated.status).to.equal(1);
    expect(misdated.output).to.include('release refused: --date 2026-02-30 is not a date YYYY-MM-DD');
    expect(fs.existsSync(released(PATCH))).to.equal(false);
    const run = runScript('release-contract.ts', work.dir, ['--date', '2026-02-28']);
    expect(run.status, run.output).to.equal(0);
    expect(fs.readFileSync(released(PATCH), 'utf8')).to.equal(fs.readFileSync(path.join(work.dir, 'openapi.yaml'), 'utf8'));
    expect(fs.readFileSync(changelogFile, 'utf8')).to.include(`## ${PATCH} — 2026-02-28\n`);
    expect(checkCompatibility(work.dir).violations).to.deep.equal([]);
  });

  it('refuses without a CHANGELOG section, or when the gate refuses, and writes nothing', () => {
    changeContract(work.dir, (doc) => ((doc.info.version = PATCH), delete schemas(doc).TaxonomyFanout.properties.max));
    const missing = runScript('release-contract.ts', work.dir);
    expect(missing.status).to.equal(1);
    expect(missing.output).to.include(`CHANGELOG.md has no section "## ${PATCH} — Unreleased"`);
    const changelogFile = path.join(work.dir, 'CHANGELOG.md');
    addSection(work.dir, `## ${PATCH} — Unreleased\n\n### Removed\n- \`TaxonomyFanout.max\`.`);
    const refused = runScript('release-contract.ts', work.dir);
    expect(refused.status).to.equal(1);
    expect(refused.output).to.include(`property \`max\` removed [breaking, rule response-property-removed]: breaking change needs version ${BREAKING} or later`);
    expect(fs.existsSync(released(PATCH))).to.equal(false);
    expect(fs.readFileSync(changelogFile, 'utf8')).to.include(`## ${PATCH} — Unreleased`);
  });
});
