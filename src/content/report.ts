import type Database from 'better-sqlite3';
import { hasTable } from '../search/kls-schema.js';
import { strongEtag } from '../common/entity-tags.js';

import type { Report } from '../ports/tenant-reads.js';

/** Report keys: lowercase letters, digits and underscores (the contract's `ReportKey`). */
export const REPORT_KEY_PATTERN = /^[a-z0-9_]{1,100}$/;

/** Reads `report_pdfs.pdf` for `key`; null when the table, the row or its bytes are missing. */
export function readReport(db: Database.Database, key: string): Report | null {
  if (!REPORT_KEY_PATTERN.test(key) || !hasTable(db, 'report_pdfs')) return null;
  const row = db.prepare('SELECT pdf FROM report_pdfs WHERE report_key = ?').get(key) as { pdf: unknown } | undefined;
  if (!Buffer.isBuffer(row?.pdf) || row.pdf.length === 0) return null;
  return { key, pdf: row.pdf, etag: strongEtag(row.pdf) };
}
