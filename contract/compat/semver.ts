/** A semantic version `major.minor.patch` (no pre-release or build part: the contract never uses them). */
export interface Version {
  major: number;
  minor: number;
  patch: number;
}

const VERSION = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;

/** Parses `text` as `major.minor.patch`; null when it is not one. */
export function parseVersion(text: string): Version | null {
  const match = VERSION.exec(text);
  return match === null ? null : { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

/** Negative, zero or positive as `a` is older than, equal to or newer than `b`. */
export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** `major.minor.patch`. */
export const formatVersion = (v: Version): string => `${v.major}.${v.minor}.${v.patch}`;

/** How much a release may change for clients: `breaking` needs a major bump (a minor one before 1.0.0). */
export type Bump = 'breaking' | 'feature' | 'fix';

/** What going from `from` to `to` allows (null when `to` is not newer). */
export function bumpOf(from: Version, to: Version): Bump | null {
  if (compareVersions(to, from) <= 0) return null;
  if (to.major > from.major) return 'breaking';
  if (from.major === 0) return to.minor > from.minor ? 'breaking' : 'feature';
  return to.minor > from.minor ? 'feature' : 'fix';
}

/** The smallest version after `from` that allows `bump`. */
export function nextVersion(from: Version, bump: Bump): Version {
  if (bump === 'breaking') return from.major === 0 ? { major: 0, minor: from.minor + 1, patch: 0 } : { major: from.major + 1, minor: 0, patch: 0 };
  if (bump === 'feature' && from.major > 0) return { major: from.major, minor: from.minor + 1, patch: 0 };
  return { ...from, patch: from.patch + 1 };
}

/** True when a release of kind `have` may carry changes that need `need`. */
export function allows(have: Bump, need: Bump): boolean {
  const rank: Record<Bump, number> = { fix: 0, feature: 1, breaking: 2 };
  return rank[have] >= rank[need];
}
