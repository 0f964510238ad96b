import fs from 'node:fs/promises';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { hasTable } from '../search/kls-schema.js';
import { SLUG_PATTERN } from '../tenants/tenants.js';
import { strongEtag } from '../common/entity-tags.js';
import type { Logo } from '../ports/tenant-reads.js';
import { sniffImageType } from './media-type.js';

/** Sent with every logo: scripts in an SVG never run, raster images are unaffected. */
export const LOGO_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** Fallback file extensions, in the order they are tried. */
export const LOGO_FILE_EXTENSIONS = ['png', 'svg', 'jpg', 'webp'] as const;

/** Logos larger than this are not served (a logo is a small image; a huge file is a mistake upstream). */
export const MAX_LOGO_BYTES = 5 * 1024 * 1024;

/** The first row of `tenant_logo` whose bytes are a PNG, SVG, JPEG or WebP image; null when there is none. */
export function readDatabaseLogo(db: Database.Database): Logo | null {
  if (!hasTable(db, 'tenant_logo')) return null;
  const row = db.prepare('SELECT data FROM tenant_logo ORDER BY rowid LIMIT 1').get() as { data: unknown } | undefined;
  const bytes = Buffer.isBuffer(row?.data) ? row.data : typeof row?.data === 'string' ? Buffer.from(row.data, 'utf8') : null;
  return bytes === null ? null : toLogo(bytes, 'database');
}

/**
 * The fallback file `<logoDir>/<slug>.(png|svg|jpg|webp)`, first that exists and holds an image; null when
 * none does. The slug is checked against the slug pattern before it reaches a path.
 */
export async function readLogoFile(logoDir: string, slug: string): Promise<Logo | null> {
  if (!SLUG_PATTERN.test(slug)) return null;
  for (const extension of LOGO_FILE_EXTENSIONS) {
    const file = path.join(logoDir, `${slug}.${extension}`);
    let bytes: Buffer;
    try {
      const stat = await fs.stat(file);
      if (!stat.isFile() || stat.size > MAX_LOGO_BYTES) continue;
      bytes = await fs.readFile(file);
    } catch {
      continue;
    }
    const logo = toLogo(bytes, 'file');
    if (logo !== null) return logo;
  }
  return null;
}

function toLogo(bytes: Buffer, source: Logo['source']): Logo | null {
  if (bytes.length === 0 || bytes.length > MAX_LOGO_BYTES) return null;
  const mediaType = sniffImageType(bytes);
  return mediaType === null ? null : { bytes, mediaType, etag: strongEtag(bytes), source, securityPolicy: LOGO_CSP };
}
