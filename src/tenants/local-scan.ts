import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { SLUG_PATTERN } from './tenants.js';
import type { TenantEntry } from './tenants.js';

/** What a scan of KLS_DIR changes in the registry. */
export interface ScannedTenants {
  readonly klsDir: string;
  list(): TenantEntry[];
  ensureEntry(pack: string, slug: string): TenantEntry;
  install(entry: TenantEntry, stat: fs.Stats): boolean;
  remove(compositeId: string): void;
}

/** Whether the file at a tenant's path is another than the one last seen there (size, mtime or inode). */
export function isReplaced(entry: TenantEntry, stat: fs.Stats): boolean {
  const s = entry.stamp;
  return s === null || s.ino !== stat.ino || s.size !== stat.size || s.mtimeMs !== stat.mtimeMs;
}

/**
 * Discovers tenants under KLS_DIR as `<pack>/<slug>/kls.sqlite`, swaps in replaced files and drops tenants whose
 * file vanished. An unreadable KLS_DIR changes nothing.
 */
export function scanKlsDir(tenants: ScannedTenants, log: Logger): void {
  let packs: string[];
  try {
    fs.accessSync(tenants.klsDir, fs.constants.R_OK | fs.constants.X_OK);
    packs = readDirNames(tenants.klsDir);
  } catch (err) {
    // An unreadable KLS_DIR is a fault to report (health says so), not proof that every tenant is gone:
    // the files in service stay in service until the folder can be read again.
    log.warn({ klsDir: tenants.klsDir, err: (err as Error).message }, 'KLS_DIR not readable; tenants kept');
    return;
  }
  const seen = new Set<string>();
  for (const pack of packs) {
    if (!SLUG_PATTERN.test(pack)) continue;
    for (const slug of readDirNames(path.join(tenants.klsDir, pack))) {
      if (!SLUG_PATTERN.test(slug)) continue;
      const dir = path.join(tenants.klsDir, pack, slug);
      const klsPath = path.join(dir, 'kls.sqlite');
      let stat: fs.Stats;
      try {
        stat = fs.statSync(klsPath);
      } catch {
        continue;
      }
      if (!stat.isFile()) continue;
      const entry = tenants.ensureEntry(pack, slug);
      seen.add(entry.compositeId);
      entry.hasSis = fs.existsSync(path.join(dir, 'sis.sqlite'));
      if (isReplaced(entry, stat)) tenants.install(entry, stat);
    }
  }
  for (const entry of tenants.list()) {
    if (!seen.has(entry.compositeId)) tenants.remove(entry.compositeId);
  }
}

function readDirNames(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}
