import type Database from 'better-sqlite3';
import type { NameColumns } from './localized.js';

/** A row of `taxonomy_members`. */
export interface MemberRow extends NameColumns {
  taxonomy_id: string;
  node_id: string;
  member_id: string;
  dim: string | null;
}

const TAXONOMY_TABLES = ['taxonomies', 'taxonomy_nodes', 'taxonomy_members'] as const;

/** True when the KLS holds the three taxonomy tables (a KLS without them has no taxonomies). */
export function hasTaxonomyTables(db: Database.Database): boolean {
  const row = db
    .prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN (${TAXONOMY_TABLES.map(() => '?').join(', ')})`)
    .get(...TAXONOMY_TABLES) as { n: number };
  return row.n === TAXONOMY_TABLES.length;
}

/** True when the tenant has taxonomy `taxonomyId`. */
export function taxonomyExists(db: Database.Database, taxonomyId: string): boolean {
  return hasTaxonomyTables(db) && db.prepare('SELECT 1 FROM taxonomies WHERE taxonomy_id = ?').get(taxonomyId) !== undefined;
}

/** True when `nodeId` is a node of taxonomy `taxonomyId`. */
export function nodeExists(db: Database.Database, taxonomyId: string, nodeId: string): boolean {
  return db.prepare('SELECT 1 FROM taxonomy_nodes WHERE taxonomy_id = ? AND node_id = ?').get(taxonomyId, nodeId) !== undefined;
}

/** Member rows of a taxonomy, optionally of one node and/or one dimension type. */
export function memberRows(db: Database.Database, taxonomyId: string, filter: { nodeId?: string; dim?: string } = {}): MemberRow[] {
  const where = ['taxonomy_id = ?'];
  const params: string[] = [taxonomyId];
  if (filter.nodeId !== undefined) {
    where.push('node_id = ?');
    params.push(filter.nodeId);
  }
  if (filter.dim !== undefined) {
    where.push('dim = ?');
    params.push(filter.dim);
  }
  return db
    .prepare(`SELECT taxonomy_id, node_id, member_id, dim, name_en, name_de, name_fr FROM taxonomy_members WHERE ${where.join(' AND ')}`)
    .all(...params) as MemberRow[];
}


/** Binary (code point) order, as SQLite sorts TEXT by default. */
export function compareIds(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
