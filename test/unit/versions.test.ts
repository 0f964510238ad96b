import { expect } from 'chai';
import fs from 'node:fs';
import YAML from 'yaml';
import { parseChangelog, SECTION_HEADING } from '../../contract/compat/changelog.js';
import { listReleases } from '../../contract/compat/releases.js';
import { formatVersion } from '../../contract/compat/semver.js';

describe('the version', () => {
  const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
  const contract = YAML.parse(fs.readFileSync('openapi.yaml', 'utf8')) as { info: { version: string } };
  const changelog = fs.readFileSync('CHANGELOG.md', 'utf8');
  const sections = parseChangelog(changelog);
  const released = new Set(listReleases(process.cwd()).map((release) => formatVersion(release.version)));

  it("of openapi.yaml (info.version) is package.json's", () => {
    expect(pkg.version).to.match(/^\d+\.\d+\.\d+$/);
    expect(contract.info.version).to.equal(pkg.version);
  });

  it('has its section in CHANGELOG.md, the newest one', () => {
    expect(sections.map((section) => section.version)[0]).to.equal(pkg.version);
  });

  it('heads every CHANGELOG.md section as "## <version> — <date>", only the newest as "— Unreleased"', () => {
    const headings = changelog.split('\n').filter((line) => line.startsWith('## '));
    expect(headings.filter((line) => !SECTION_HEADING.test(line)), 'headings of another form').to.deep.equal([]);
    expect(sections.slice(1).filter((section) => section.date === null).map((section) => section.version), 'older sections not dated').to.deep.equal([]);
  });

  it('is released (contract/releases/<version>.yaml) exactly when its CHANGELOG.md section is dated', () => {
    for (const section of sections.filter((s) => released.has(s.version) || s.version === pkg.version)) {
      expect(section.date !== null, `section ${section.version} dated`).to.equal(released.has(section.version));
    }
  });
});
