import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** A `build_info` row as docs/kls-format.md describes it. */
export interface BuildInfoRow {
  kind: string;
  repo: string | null;
  ref: string | null;
  commit_sha: string | null;
}

/**
 * Adds tenant `<pack>.<slug>` to `dataDir/kls` as a copy of ost.kantonsspital whose `build_info` holds exactly
 * `rows`; `null` drops the table. Returns the new file's path.
 */
export function addTenantWithBuildInfo(dataDir: string, pack: string, slug: string, rows: BuildInfoRow[] | null): string {
  const target = path.join(dataDir, 'kls', pack, slug, 'kls.sqlite');
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(path.join(dataDir, 'kls', 'ost', 'kantonsspital', 'kls.sqlite'), target);
  rewriteBuildInfo(target, rows);
  return target;
}

/** Replaces the `build_info` rows of the KLS file at `file` (a file not in service, or a copy to swap in). */
export function rewriteBuildInfo(file: string, rows: BuildInfoRow[] | null): void {
  const db = new Database(file);
  try {
    db.exec('DROP TABLE IF EXISTS build_info');
    if (rows !== null) {
      db.exec('CREATE TABLE build_info (kind TEXT PRIMARY KEY, repo TEXT, ref TEXT, commit_sha TEXT, recorded_at TEXT)');
      const insert = db.prepare("INSERT INTO build_info VALUES (@kind, @repo, @ref, @commit_sha, '2026-11-01T06:00:00Z')");
      for (const row of rows) insert.run(row);
    }
  } finally {
    db.close();
  }
}
