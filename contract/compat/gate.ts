import { apiCompare, type Diff } from 'api-smart-diff';
import { deprecationProblems } from '../../src/http/deprecation.js';
import { BREAKING_HEADING, mentions, type ChangelogSection } from './changelog.js';
import { inlineSchemas } from './inline.js';
import { locate } from './locate.js';
import { classify, GENERATOR_DEFAULTS, type Kind } from './rules.js';
import { allows, bumpOf, formatVersion, nextVersion, parseVersion, type Bump } from './semver.js';

/** One change between two contracts, classified by the rules of docs/versioning.md. */
export interface Change {
  kind: Kind;
  /** The rule of docs/versioning.md that decided `kind`. */
  rule: string;
  /** `METHOD /path`, `* /path` for a whole path, or null for the document and its components. */
  operation: string | null;
  /** Readable place inside the operation (or the document). */
  where: string;
  /** The name an entry of CHANGELOG.md must mention besides the operation (null: the operation suffices). */
  subject: string | null;
  /** `Schema.member`, or the response component of an added or removed status, an entry may name instead of the operation. */
  member: string | null;
  /** api-smart-diff's own verdict, kept to show where our rules differ. */
  library: Diff['type'];
  action: Diff['action'];
  path: (string | number)[];
}

/** A reason the contract may not go out as it is. */
export interface Violation {
  change?: Change;
  message: string;
}

type Contract = { info?: { version?: unknown } } & Record<string, unknown>;

/** `GET /x — response 200 (application/json): property \`a\` removed [rule response-property-removed]`. */
export function describe(change: Change): string {
  const verb = change.action === 'add' ? 'added' : change.action === 'remove' ? 'removed' : change.action === 'rename' ? 'renamed' : 'changed';
  const place = change.operation === null ? change.where : `${change.operation} — ${change.where}`;
  return `${place} ${verb} [${change.kind}, rule ${change.rule}]`;
}

/** The generators whose earlier clients `change` breaks, and what their integrators do (docs/versioning.md); '' for none. */
export function generatorDefaultsNote(change: Change): string {
  const defaults = GENERATOR_DEFAULTS[change.rule];
  return defaults === undefined ? '' : `breaks earlier clients of: ${defaults.join(', ')}`;
}

/** Every change from `before` to `after` (annotations included), classified by our rules. */
export function contractChanges(before: unknown, after: unknown): Change[] {
  // schemas written out in place: where the contract writes a schema is no change (inline.ts)
  const [old, now] = [inlineSchemas(before), inlineSchemas(after)];
  // api-smart-diff rewrites what it is given (it merges allOf and drops discriminators in place): give it copies
  const { diffs } = apiCompare(structuredClone(old), structuredClone(now));
  return diffs.map((diff) => {
    const where = locate(diff, old, now);
    const verdict = classify(diff, where);
    return {
      ...verdict,
      operation: where.operation,
      where: where.where,
      subject: where.subject,
      member: where.member,
      library: diff.type,
      action: diff.action,
      path: [...diff.path],
    };
  });
}

/** The release kind changes of this kind need. */
const NEEDED: Record<Kind, Bump> = { breaking: 'breaking', 'non-breaking': 'feature', deprecated: 'feature', annotation: 'fix' };

/** True when an entry of `section` names `change` (under `### Breaking` for a breaking one). */
export function isListed(change: Change, section: ChangelogSection): boolean {
  const label = change.operation === null ? null : change.operation.startsWith('* ') ? change.operation.slice(2) : change.operation;
  return section.entries.some((entry) => {
    if (change.kind === 'breaking' && entry.heading !== BREAKING_HEADING) return false;
    const named = (label !== null && mentions(entry.text, label)) || (change.member !== null && mentions(entry.text, change.member));
    return named && (change.subject === null || mentions(entry.text, change.subject));
  });
}

/**
 * Judges going from contract `before` (a release) to `after`: the version must be newer, and newer enough for the
 * kind of its changes (a breaking one needs a major version, a minor one before 1.0.0; docs/versioning.md), every
 * change that is not an annotation must be named in `section` (the CHANGELOG section of `after`'s version), and
 * the deprecations of `after` must be well-formed.
 */
export function judge(before: Contract, after: Contract, section: ChangelogSection | undefined): { changes: Change[]; violations: Violation[] } {
  const violations: Violation[] = [];
  const from = parseVersion(String(before.info?.version));
  const to = parseVersion(String(after.info?.version));
  if (from === null || to === null) {
    return { changes: [], violations: [{ message: `info.version must be major.minor.patch (released ${String(before.info?.version)}, now ${String(after.info?.version)})` }] };
  }
  for (const problem of deprecationProblems(after)) violations.push({ message: `${problem} [rule deprecation-extensions]` });
  const changes = contractChanges(before, after);
  const relevant = changes.filter((change) => change.kind !== 'annotation');
  if (changes.length === 0) return { changes, violations };
  const bump = bumpOf(from, to);
  const versions = `${formatVersion(from)} → ${formatVersion(to)}`;
  if (bump === null) {
    violations.push({ message: `the contract changed since release ${formatVersion(from)} but info.version is ${formatVersion(to)}: a change needs a newer version` });
  }
  for (const change of relevant) {
    const need = NEEDED[change.kind];
    if (bump === null || !allows(bump, need)) {
      const version = formatVersion(nextVersion(from, need));
      violations.push({ change, message: `${describe(change)}: ${change.kind} change needs version ${version} or later (${versions})` });
    }
    if (section === undefined) continue;
    if (!isListed(change, section)) {
      const where = change.kind === 'breaking' ? `under "### ${BREAKING_HEADING}" ` : '';
      const names = [change.operation?.replace(/^\* /, '') ?? change.member, change.subject].filter((name) => name !== null && name !== undefined).map((name) => `\`${name}\``);
      violations.push({ change, message: `${describe(change)}: not in CHANGELOG.md ${formatVersion(to)} ${where}(an entry naming ${names.join(' and ')})` });
    }
  }
  if (section === undefined && relevant.length > 0) {
    violations.push({ message: `CHANGELOG.md has no section "## ${formatVersion(to)} — …" for the ${relevant.length} change(s) since ${formatVersion(from)}` });
  }
  return { changes, violations };
}
