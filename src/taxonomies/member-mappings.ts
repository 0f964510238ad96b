import type Database from 'better-sqlite3';
import type { components } from '../../generated/openapi.js';
import { toApiLocalizedName } from './localized.js';
import { UNKNOWN_DIM } from './members.js';
import { hasTaxonomyTables } from './taxonomy-rows.js';

/** One placement of a member, as the contract sends it. */
export type MemberMapping = components['schemas']['MemberMapping'];

interface MappingRow {
  taxonomy_id: string;
  t_en: string | null;
  t_de: string | null;
  t_fr: string | null;
  node_id: string;
  n_en: string | null;
  n_de: string | null;
  n_fr: string | null;
  parent_id: string | null;
  dim: string | null;
}

const MAPPINGS_SQL = `
  SELECT m.taxonomy_id, t.name_en AS t_en, t.name_de AS t_de, t.name_fr AS t_fr,
         m.node_id, n.name_en AS n_en, n.name_de AS n_de, n.name_fr AS n_fr, n.parent_id, m.dim
  FROM taxonomy_members m
  JOIN taxonomies t ON t.taxonomy_id = m.taxonomy_id
  LEFT JOIN taxonomy_nodes n ON n.taxonomy_id = m.taxonomy_id AND n.node_id = m.node_id
  WHERE m.member_id = ?
  ORDER BY m.taxonomy_id, m.node_id`;

/** Maps one joined member/node/taxonomy row to the contract's MemberMapping. */
export function toApiMemberMapping(row: MappingRow): MemberMapping {
  return {
    taxonomy_id: row.taxonomy_id,
    taxonomy_name: toApiLocalizedName({ name_en: row.t_en, name_de: row.t_de, name_fr: row.t_fr }, row.taxonomy_id),
    node_id: row.node_id,
    node_name: toApiLocalizedName({ name_en: row.n_en, name_de: row.n_de, name_fr: row.n_fr }, row.node_id),
    parent_id: row.parent_id,
    dim: row.dim ?? UNKNOWN_DIM,
  };
}

/** Every (taxonomy, node) member `memberId` is attached to, ordered by taxonomy then node; empty when unknown. */
export function getMemberMappings(db: Database.Database, memberId: string): MemberMapping[] {
  if (!hasTaxonomyTables(db)) return [];
  return (db.prepare(MAPPINGS_SQL).all(memberId) as MappingRow[]).map(toApiMemberMapping);
}
