import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { TenantFileName } from './layout.js';

/** What the cache holds of one file: the ETag and size of the object it was downloaded from. */
export interface CachedObject {
  etag: string;
  size: number;
}

/** Per tenant folder: which object each cached file came from (survives restarts, so unchanged files are not fetched again). */
export type CacheManifest = Partial<Record<TenantFileName, CachedObject>>;

const MANIFEST = '.store-objects.json';
const TEMP_MARK = '.download-';
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Reads the manifest of a tenant folder; an absent or unreadable one is empty. */
export function readManifest(dir: string): CacheManifest {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as CacheManifest) : {};
  } catch {
    return {};
  }
}

/** Records (or with `null` forgets) the object a cached file came from; written to a temporary file, then renamed. */
export function recordCachedObject(dir: string, name: TenantFileName, object: CachedObject | null): void {
  const manifest = readManifest(dir);
  if (object === null) delete manifest[name];
  else manifest[name] = object;
  const temp = path.join(dir, `${MANIFEST}${TEMP_MARK}${randomUUID()}`);
  fs.writeFileSync(temp, JSON.stringify(manifest));
  fs.renameSync(temp, path.join(dir, MANIFEST));
}

/** When the folder's manifest was last written (its last download), in ms since the epoch; 0 without one. */
export function readManifestTime(dir: string): number {
  try {
    return fs.statSync(path.join(dir, MANIFEST)).mtimeMs;
  } catch {
    return 0;
  }
}

/** Whether `file` is the cached copy of `object`: recorded with the same ETag and still of its size. */
export function isCachedCopy(dir: string, name: TenantFileName, object: CachedObject): boolean {
  const cached = readManifest(dir)[name];
  if (cached === undefined || cached.etag !== object.etag || cached.size !== object.size) return false;
  try {
    return fs.statSync(path.join(dir, name)).size === object.size;
  } catch {
    return false;
  }
}

/** A fresh temporary path beside `name` in `dir` (same file system, so the rename is atomic). */
export function tempPathFor(dir: string, name: TenantFileName): string {
  return path.join(dir, `.${name}${TEMP_MARK}${randomUUID()}`);
}

/** Deletes temporary files a stopped download left in `dir`. */
export function removeLeftoverTemps(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (name.includes(TEMP_MARK)) fs.rmSync(path.join(dir, name), { force: true });
}

/** Throws a one-line reason when `file` is not a complete SQLite database: size, header, opens read-only. */
export function checkSqliteFile(file: string, expectedBytes: number | null): void {
  const size = fs.statSync(file).size;
  if (expectedBytes !== null && size !== expectedBytes) throw new Error(`incomplete download: ${size} of ${expectedBytes} bytes`);
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, header.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (size < 512 || !header.equals(SQLITE_HEADER)) throw new Error('not an SQLite database (no SQLite header)');
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.prepare('SELECT count(*) AS n FROM sqlite_master').get();
  } catch (err) {
    throw new Error(`does not open as SQLite: ${(err as Error).message}`);
  } finally {
    db?.close();
  }
}
