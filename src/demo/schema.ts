import { defineTable } from './sqlite.js';

/** Tables of docs/kls-format.md that are not Gold or dimension tables (names and columns exactly as there). */
export const KLS_TABLES = {
  meta: defineTable('meta', 'key TEXT*, value TEXT'),
  tenantLogo: defineTable('tenant_logo', 'mime TEXT, data BLOB'),
  buildInfo: defineTable('build_info', 'kind TEXT*, repo TEXT, ref TEXT, commit_sha TEXT, recorded_at TEXT'),
  findings: defineTable(
    'findings',
    'finding_id TEXT*, probe_id TEXT, entity_type TEXT, entity_id TEXT, time_bucket TEXT, severity TEXT, money_at_risk REAL, evidence TEXT',
  ),
  searchItems: defineTable(
    'search_items',
    'kind TEXT*, item_id TEXT*, name_en TEXT, name_de TEXT, name_fr TEXT, description_en TEXT, description_de TEXT, description_fr TEXT, meta TEXT',
  ),
  goldTables: defineTable(
    'gold_tables',
    'table_name TEXT*, entity_type TEXT, entity_column TEXT, time_column TEXT, label_en TEXT, label_de TEXT, label_fr TEXT',
  ),
  taxonomies: defineTable('taxonomies', 'taxonomy_id TEXT*, name_en TEXT, name_de TEXT, name_fr TEXT'),
  taxonomyNodes: defineTable(
    'taxonomy_nodes',
    'taxonomy_id TEXT*, node_id TEXT*, parent_id TEXT, name_en TEXT, name_de TEXT, name_fr TEXT',
  ),
  taxonomyMembers: defineTable(
    'taxonomy_members',
    'taxonomy_id TEXT*, node_id TEXT*, member_id TEXT*, dim TEXT, name_en TEXT, name_de TEXT, name_fr TEXT',
  ),
  dimensions: defineTable('dimensions', 'entity TEXT*, table_name TEXT, label_en TEXT, label_de TEXT, label_fr TEXT'),
  pipelineArtifacts: defineTable('pipeline_artifacts', 'artifact_key TEXT*, content TEXT'),
  reportPdfs: defineTable('report_pdfs', 'report_key TEXT*, title TEXT, pdf BLOB, created_at TEXT'),
} as const;
