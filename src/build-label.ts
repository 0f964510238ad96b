import fs from 'node:fs';
import path from 'node:path';

/** `v<major>.<minor>.<patch> <YYYY-MM-DD HH:MM>` (UTC build time), shown by `GET /health` and `X-Build-Label`. */
export interface BuildLabel {
  semver: string;
  label: string;
}

/** Formats a UTC time the way the build label shows it. */
export const formatBuildTime = (date: Date): string => date.toISOString().slice(0, 16).replace('T', ' ');

/**
 * Reads the label that `npm run build` wrote to build-label.json; when the code runs unbuilt (tsx in tests),
 * the label uses the package version and the time the process started.
 */
export function readBuildLabel(root: string): BuildLabel {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  try {
    const saved = JSON.parse(fs.readFileSync(path.join(root, 'build-label.json'), 'utf8')) as { label?: unknown };
    if (typeof saved.label === 'string' && saved.label.startsWith(`v${pkg.version} `)) {
      return { semver: pkg.version, label: saved.label };
    }
  } catch {
    // not built: fall through
  }
  return { semver: pkg.version, label: `v${pkg.version} ${formatBuildTime(new Date())}` };
}
