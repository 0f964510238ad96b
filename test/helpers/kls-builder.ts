import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { demoTemplateDir, tempDir } from './server.js';

/** A table to create: column definitions as SQL (`"a TEXT, b REAL"`) and rows keyed by column name. */
export interface TableSpec {
  columns: string;
  rows?: Record<string, unknown>[];
}

/** Column definitions of the KLS tables of docs/kls-format.md, for hand-built files. */
export const KLS_COLUMNS = {
  tenant_logo: 'mime TEXT, data BLOB',
  findings: 'finding_id TEXT PRIMARY KEY, probe_id TEXT, entity_type TEXT, entity_id TEXT, time_bucket TEXT, severity TEXT, money_at_risk REAL, evidence TEXT',
  search_items:
    'kind TEXT, item_id TEXT, name_en TEXT, name_de TEXT, name_fr TEXT, description_en TEXT, description_de TEXT, description_fr TEXT, meta TEXT, PRIMARY KEY (kind, item_id)',
  gold_tables: 'table_name TEXT PRIMARY KEY, entity_type TEXT, entity_column TEXT, time_column TEXT, label_en TEXT, label_de TEXT, label_fr TEXT',
  pipeline_artifacts: 'artifact_key TEXT PRIMARY KEY, content TEXT',
  report_pdfs: 'report_key TEXT PRIMARY KEY, title TEXT, pdf BLOB, created_at TEXT',
} as const;

/**
 * Writes a minimal KLS file: a `meta` table (tenant_id = slug, display_name) plus exactly the tables given.
 * Leave a table out to test a KLS without it; give NULL values to test missing language variants.
 */
export function buildKls(file: string, slug: string, tables: Record<string, TableSpec> = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.building`;
  fs.rmSync(temp, { force: true });
  const db = new Database(temp);
  try {
    db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)');
    const meta = db.prepare('INSERT INTO meta VALUES (?, ?)');
    for (const [key, value] of Object.entries({ tenant_id: slug, display_name: `Hand-built ${slug}`, kls_version: '1' })) meta.run(key, value);
    db.transaction(() => {
      for (const [name, spec] of Object.entries(tables)) {
        db.exec(`CREATE TABLE "${name}" (${spec.columns})`);
        for (const row of spec.rows ?? []) {
          const columns = Object.keys(row);
          db.prepare(`INSERT INTO "${name}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(
            ...columns.map((c) => row[c]),
          );
        }
      }
    })();
  } finally {
    db.close();
  }
  fs.renameSync(temp, file);
}

/** A search_items row; unnamed languages are NULL. */
export function searchRow(kind: string, id: string, en: string | null, de: string | null = en, fr: string | null = en, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind, item_id: id, name_en: en, name_de: de, name_fr: fr, ...extra };
}

/**
 * A data folder: a copy of the demo data plus hand-built tenants (`<pack>.<slug>` → tables) and logo files.
 * `broken` tenants get a kls.sqlite that is not SQLite (their database is unusable: 503).
 */
export function dataDirWith(
  options: { tenants?: Record<string, Record<string, TableSpec>>; broken?: string[]; logos?: Record<string, Buffer | string> } = {},
): { dir: string; klsFile: (compositeId: string) => string; remove: () => void } {
  const { dir, remove } = tempDir('ads-kls-');
  fs.cpSync(demoTemplateDir(), dir, { recursive: true });
  const klsFile = (compositeId: string): string => {
    const [pack, slug] = compositeId.split('.') as [string, string];
    return path.join(dir, 'kls', pack, slug, 'kls.sqlite');
  };
  for (const [compositeId, tables] of Object.entries(options.tenants ?? {})) buildKls(klsFile(compositeId), compositeId.split('.')[1]!, tables);
  for (const compositeId of options.broken ?? []) {
    fs.mkdirSync(path.dirname(klsFile(compositeId)), { recursive: true });
    fs.writeFileSync(klsFile(compositeId), 'not a database\n'.repeat(100));
  }
  for (const [name, content] of Object.entries(options.logos ?? {})) fs.writeFileSync(path.join(dir, 'logos', name), content);
  return { dir, klsFile, remove };
}
