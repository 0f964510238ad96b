import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import type { FileSink } from '../../src/store/object-store.js';
import { demoKlsFile } from './s3rver.js';

/** Bytes of every file under `dir` (tenant files, search indexes, manifests, temporary files), as the disk holds them. */
export function bytesOnDisk(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir, { recursive: true }).map(String);
  } catch {
    return 0;
  }
  for (const name of names) {
    try {
      const stat = fs.statSync(path.join(dir, name));
      if (stat.isFile()) total += stat.size;
    } catch {
      // deleted between the listing and the stat
    }
  }
  return total;
}

/** Temporary files (downloads, index builds) under `dir`. */
export const temporaryFiles = (dir: string): string[] =>
  fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String).filter((name) => /\.download-|\.tmp-/.test(name)) : [];

/**
 * A copy of the demo tenant `<pack>/<slug>`'s file with `displayName`, whose report `monthly_controlling_2026_10`
 * says `marker` (a read of it tells which file answered), grown by `padBytes` of a table no read touches.
 */
export function tenantVariant(pack: string, slug: string, displayName: string, marker: string, padBytes = 0): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ads-variant-')), 'kls.sqlite');
  fs.copyFileSync(demoKlsFile(pack, slug), file);
  const db = new Database(file);
  try {
    db.prepare("UPDATE meta SET value = ? WHERE key = 'display_name'").run(displayName);
    db.prepare('UPDATE report_pdfs SET pdf = ? WHERE report_key = ?').run(Buffer.from(`%PDF-1.4\n% ${marker}\n%%EOF\n`), REPORT_KEY);
    if (padBytes > 0) {
      db.exec('CREATE TABLE padding (data BLOB)');
      db.prepare('INSERT INTO padding VALUES (?)').run(Buffer.alloc(padBytes, 7));
    }
  } finally {
    db.close();
  }
  return file;
}

/** The report every tenant variant rewrites. */
export const REPORT_KEY = 'monthly_controlling_2026_10';

/** A disk with `freeBytes` left for downloads, shared by every file written through it; `free(bytes)` gives more. */
export function fillingDisk(freeBytes: number): { sink: FileSink; free(bytes: number): void; readonly failures: number } {
  let left = freeBytes;
  let failures = 0;
  return {
    sink: (file) => {
      const out = fs.createWriteStream(file);
      return new Writable({
        write(chunk: Buffer, _encoding, done) {
          if (chunk.length > left) {
            failures += 1;
            const err = Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), { code: 'ENOSPC' });
            out.destroy();
            done(err);
            return;
          }
          left -= chunk.length;
          out.write(chunk, done);
        },
        final(done) {
          out.end(done);
        },
      });
    },
    free(bytes) {
      left += bytes;
    },
    get failures() {
      return failures;
    },
  };
}
