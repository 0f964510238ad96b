// `npm run release:contract [-- --replace] [--date YYYY-MM-DD]`: releases the contract at its info.version. Copies
// openapi.yaml byte for byte to contract/releases/<version>.yaml and dates the version's CHANGELOG.md heading when it
// says "Unreleased", with --date or else today's date (UTC).
// Refuses when that release exists (unless --replace, for a version not yet published), when CHANGELOG.md has no
// section for the version, or when the contract fails the compatibility check against the release before it.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseChangelog } from '../contract/compat/changelog.js';
import { judge } from '../contract/compat/gate.js';
import { listReleases, readContract, RELEASES_DIR } from '../contract/compat/releases.js';
import { compareVersions, formatVersion, parseVersion } from '../contract/compat/semver.js';

function fail(message: string): never {
  console.error(`release refused: ${message}`);
  process.exit(1);
}

const { values: options } = parseArgs({ options: { replace: { type: 'boolean', default: false }, date: { type: 'string' } } });
const replace = options.replace;
const date = options.date ?? new Date().toISOString().slice(0, 10);
if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date)) || new Date(date).toISOString().slice(0, 10) !== date) {
  fail(`--date ${date} is not a date YYYY-MM-DD`);
}
const root = process.cwd();
const contractFile = path.join(root, 'openapi.yaml');
const changelogFile = path.join(root, 'CHANGELOG.md');
const contract = readContract(contractFile);
const version = parseVersion(String(contract.info?.version));
if (version === null) fail(`openapi.yaml info.version ${String(contract.info?.version)} is not major.minor.patch`);
const name = formatVersion(version);
const target = path.join(root, RELEASES_DIR, `${name}.yaml`);
if (fs.existsSync(target) && !replace) {
  fail(`${path.relative(root, target)} exists; a published release never changes (--replace redoes one that is not published yet)`);
}
const changelog = fs.readFileSync(changelogFile, 'utf8');
const section = parseChangelog(changelog).find((candidate) => candidate.version === name);
if (section === undefined) fail(`CHANGELOG.md has no section "## ${name} — Unreleased" (or dated) for this version`);

const previous = listReleases(root).filter((release) => compareVersions(release.version, version) < 0).pop();
if (previous !== undefined) {
  const { violations } = judge(readContract(previous.file), contract, section);
  if (violations.length > 0) fail(`against the release ${formatVersion(previous.version)}:\n${violations.map((v) => `  ✗ ${v.message}`).join('\n')}`);
}

fs.mkdirSync(path.dirname(target), { recursive: true });
fs.copyFileSync(contractFile, target);
if (section.date === null) {
  const lines = changelog.split('\n');
  lines[section.line - 1] = `## ${name} — ${date}`;
  fs.writeFileSync(changelogFile, lines.join('\n'));
  console.log(`CHANGELOG.md: ${name} dated ${date}`);
}
console.log(`released the contract ${name}: ${path.relative(root, target)}${previous === undefined ? '' : ` (checked against ${formatVersion(previous.version)})`}`);
