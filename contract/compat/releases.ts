import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { parseChangelog } from './changelog.js';
import { judge, type Change, type Violation } from './gate.js';
import { compareVersions, formatVersion, parseVersion, type Version } from './semver.js';

/** Where released contracts are kept, relative to the repository root. */
export const RELEASES_DIR = path.join('contract', 'releases');

/** A released contract: `contract/releases/<version>.yaml`. */
export interface Release {
  version: Version;
  file: string;
}

/** The released contracts under `root`, oldest first. */
export function listReleases(root: string): Release[] {
  const dir = path.join(root, RELEASES_DIR);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .flatMap((name) => {
      const version = name.endsWith('.yaml') ? parseVersion(name.slice(0, -5)) : null;
      return version === null ? [] : [{ version, file: path.join(dir, name) }];
    })
    .sort((a, b) => compareVersions(a.version, b.version));
}

/** Reads a contract file as a plain object. */
export function readContract(file: string): Record<string, unknown> & { info?: { version?: unknown } } {
  return YAML.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** What `npm run test:compat` found: the pairs it compared, their changes and what is wrong. */
export interface CompatReport {
  compared: { from: string; to: string; changes: Change[] }[];
  violations: Violation[];
}

/**
 * Checks the contract under `root` (openapi.yaml) against its releases: each release file holds its own version;
 * openapi.yaml at a version not yet released is judged against the latest release; at the latest release's version
 * it must equal that release, and the release itself is judged against the one before. Judging is `judge`'s.
 */
export function checkCompatibility(root: string): CompatReport {
  const releases = listReleases(root);
  const violations: Violation[] = [];
  const compared: CompatReport['compared'] = [];
  const current = readContract(path.join(root, 'openapi.yaml'));
  const sections = parseChangelog(fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8'));
  const sectionOf = (version: string) => sections.find((section) => section.version === version);
  if (releases.length === 0) return { compared, violations: [{ message: `no released contract in ${RELEASES_DIR}/ to compare openapi.yaml with` }] };
  const contracts = new Map(releases.map((release) => [release, readContract(release.file)]));
  for (const [release, contract] of contracts) {
    if (contract.info?.version !== formatVersion(release.version)) {
      violations.push({ message: `${path.relative(root, release.file)} holds info.version ${String(contract.info?.version)}` });
    }
  }
  const version = parseVersion(String(current.info?.version));
  if (version === null) return { compared, violations: [...violations, { message: `openapi.yaml info.version ${String(current.info?.version)} is not major.minor.patch` }] };
  const latest = releases[releases.length - 1]!;
  const order = compareVersions(version, latest.version);
  const pairs: [Release, Release | null][] = [];
  if (order < 0) violations.push({ message: `openapi.yaml info.version ${formatVersion(version)} is older than the latest release ${formatVersion(latest.version)}` });
  else if (order > 0) pairs.push([latest, null]);
  else {
    pairs.push([latest, null]);
    if (releases.length > 1) pairs.push([releases[releases.length - 2]!, latest]);
  }
  for (const [from, to] of pairs) {
    const target = to === null ? current : contracts.get(to)!;
    const outcome = judge(contracts.get(from)!, target, sectionOf(String(target.info?.version)));
    const name = to === null ? 'openapi.yaml' : path.relative(root, to.file);
    compared.push({ from: formatVersion(from.version), to: name, changes: outcome.changes });
    const sameVersion = to === null && order === 0;
    for (const violation of outcome.violations) {
      const prefix = sameVersion ? `openapi.yaml differs from the release ${formatVersion(latest.version)}: ` : `${formatVersion(from.version)} → ${name}: `;
      violations.push({ ...violation, message: prefix + violation.message });
    }
  }
  return { compared, violations };
}
