import Database from 'better-sqlite3';
import { KLS_COLUMNS, buildKls } from './kls-builder.js';

/** The entity ID that occurs once in `gold_big`, in its last row (so explain reads every row to find it). */
export const RARE_MATERIAL = 'M-RARE';

/**
 * Writes a KLS file with `rows` rows in the dimension `big` (`dim_big`: an INTEGER PRIMARY KEY and text and REAL
 * columns, none of them indexed but the key) and in the Gold table `gold_big` (entity type Material, entity column
 * `material_id` without an index, time column `moved_on`). The rows come from one INSERT … SELECT over a recursive
 * CTE inside SQLite, about a second per million rows, instead of a statement per row.
 */
export function buildBigTenant(file: string, slug: string, rows: number): void {
  buildKls(file, slug, {
    dimensions: { columns: 'entity TEXT PRIMARY KEY, table_name TEXT, label_en TEXT, label_de TEXT, label_fr TEXT', rows: [{ entity: 'big', table_name: 'dim_big', label_en: 'Big' }] },
    gold_tables: {
      columns: KLS_COLUMNS.gold_tables,
      rows: [{ table_name: 'gold_big', entity_type: 'Material', entity_column: 'material_id', time_column: 'moved_on', label_en: 'Big movements' }],
    },
    dim_big: { columns: 'id INTEGER PRIMARY KEY, code TEXT, name TEXT, category TEXT, price REAL, note TEXT' },
    gold_big: { columns: 'movement_id INTEGER PRIMARY KEY, material_id TEXT, quantity INTEGER, moved_on TEXT' },
  });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    const series = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})`;
    db.exec(`${series}
      INSERT INTO dim_big (id, code, name, category, price, note)
      SELECT i, printf('M-%07d', i), printf('Material %d, sterile pack of %d pieces', i, i % 50 + 1),
             CASE i % 4 WHEN 0 THEN 'Implant' WHEN 1 THEN 'Drug' WHEN 2 THEN 'Consumable' ELSE 'Laboratory' END,
             ((i * 7919) % 100000) / 100.0, CASE WHEN i % 7 = 3 THEN 'framework contract 2026' END
      FROM n`);
    db.exec(`${series}
      INSERT INTO gold_big (movement_id, material_id, quantity, moved_on)
      SELECT i, CASE WHEN i = ${rows} THEN '${RARE_MATERIAL}' ELSE printf('M-%07d', i % 5000 + 1) END, i % 13 - 6,
             printf('2026-%02d-%02d', i % 12 + 1, i % 28 + 1)
      FROM n`);
  } finally {
    db.close();
  }
}
