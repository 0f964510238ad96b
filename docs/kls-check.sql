-- Checks a KLS tenant file against docs/kls-format.md:
--   sqlite3 -readonly kls.sqlite < docs/kls-check.sql
-- Each statement prints only what is wrong: no output means the file passes. A "no such table" error
-- means an optional table is absent (see "Optional tables"); the other checks still run.

-- Intact, and self-contained (only kls.sqlite is transferred, never a -wal file).
SELECT 'integrity: ' || quick_check FROM pragma_quick_check WHERE quick_check <> 'ok';
SELECT 'journal_mode is wal: deliver with PRAGMA journal_mode = DELETE' FROM pragma_journal_mode WHERE journal_mode = 'wal';

-- Tables (all optional; gold_tables should always be there).
SELECT 'table absent: ' || t FROM (
  SELECT 'meta' AS t UNION ALL SELECT 'tenant_logo' UNION ALL SELECT 'build_info' UNION ALL SELECT 'findings'
  UNION ALL SELECT 'search_items' UNION ALL SELECT 'gold_tables' UNION ALL SELECT 'taxonomies'
  UNION ALL SELECT 'taxonomy_nodes' UNION ALL SELECT 'taxonomy_members' UNION ALL SELECT 'dimensions'
  UNION ALL SELECT 'pipeline_artifacts' UNION ALL SELECT 'report_pdfs')
WHERE t NOT IN (SELECT name FROM sqlite_master WHERE type = 'table');

-- Columns the server reads, for every table the file has.
WITH needed(t, c) AS (VALUES
  ('meta','key'), ('meta','value'),
  ('tenant_logo','data'),
  ('build_info','kind'), ('build_info','repo'), ('build_info','ref'), ('build_info','commit_sha'),
  ('findings','finding_id'), ('findings','probe_id'), ('findings','entity_type'), ('findings','entity_id'),
  ('findings','time_bucket'), ('findings','severity'), ('findings','money_at_risk'), ('findings','evidence'),
  ('search_items','kind'), ('search_items','item_id'), ('search_items','name_en'), ('search_items','name_de'),
  ('search_items','name_fr'), ('search_items','description_en'), ('search_items','description_de'),
  ('search_items','description_fr'), ('search_items','meta'),
  ('gold_tables','table_name'), ('gold_tables','entity_type'), ('gold_tables','entity_column'),
  ('gold_tables','time_column'), ('gold_tables','label_en'), ('gold_tables','label_de'), ('gold_tables','label_fr'),
  ('taxonomies','taxonomy_id'), ('taxonomies','name_en'), ('taxonomies','name_de'), ('taxonomies','name_fr'),
  ('taxonomy_nodes','taxonomy_id'), ('taxonomy_nodes','node_id'), ('taxonomy_nodes','parent_id'),
  ('taxonomy_nodes','name_en'), ('taxonomy_nodes','name_de'), ('taxonomy_nodes','name_fr'),
  ('taxonomy_members','taxonomy_id'), ('taxonomy_members','node_id'), ('taxonomy_members','member_id'),
  ('taxonomy_members','dim'), ('taxonomy_members','name_en'), ('taxonomy_members','name_de'), ('taxonomy_members','name_fr'),
  ('dimensions','entity'), ('dimensions','table_name'),
  ('pipeline_artifacts','artifact_key'), ('pipeline_artifacts','content'),
  ('report_pdfs','report_key'), ('report_pdfs','pdf'))
SELECT 'column missing: ' || t || '.' || c FROM needed
WHERE t IN (SELECT name FROM sqlite_master WHERE type = 'table')
  AND c NOT IN (SELECT name FROM pragma_table_info(t));

-- Keys are unique (also where the table declares no PRIMARY KEY).
SELECT 'duplicate meta key: ' || key FROM meta GROUP BY key HAVING count(*) > 1;
SELECT 'duplicate build_info kind: ' || kind FROM build_info GROUP BY kind HAVING count(*) > 1;
SELECT 'duplicate finding: ' || finding_id FROM findings GROUP BY finding_id HAVING count(*) > 1;
SELECT 'duplicate search item: ' || kind || '/' || item_id FROM search_items GROUP BY kind, item_id HAVING count(*) > 1;
SELECT 'duplicate gold_tables row: ' || table_name FROM gold_tables GROUP BY table_name HAVING count(*) > 1;
SELECT 'duplicate taxonomy: ' || taxonomy_id FROM taxonomies GROUP BY taxonomy_id HAVING count(*) > 1;
SELECT 'duplicate node: ' || taxonomy_id || '/' || node_id FROM taxonomy_nodes GROUP BY taxonomy_id, node_id HAVING count(*) > 1;
SELECT 'duplicate member: ' || taxonomy_id || '/' || node_id || '/' || member_id FROM taxonomy_members
  GROUP BY taxonomy_id, node_id, member_id HAVING count(*) > 1;
SELECT 'duplicate dimension: ' || entity FROM dimensions GROUP BY entity HAVING count(*) > 1;
SELECT 'duplicate artifact: ' || artifact_key FROM pipeline_artifacts GROUP BY artifact_key HAVING count(*) > 1;
SELECT 'duplicate report: ' || report_key FROM report_pdfs GROUP BY report_key HAVING count(*) > 1;

-- meta: the display name, and the keys producers record.
SELECT 'meta key missing: ' || k FROM (SELECT 'tenant_id' AS k UNION ALL SELECT 'display_name' UNION ALL SELECT 'pack'
  UNION ALL SELECT 'built_at' UNION ALL SELECT 'kls_version') WHERE k NOT IN (SELECT key FROM meta);
SELECT 'meta.display_name is blank' FROM meta WHERE key = 'display_name' AND trim(coalesce(value, '')) = '';
SELECT 'meta.kls_version is not 1' FROM meta WHERE key = 'kls_version' AND value IS NOT '1';

-- Registries name tables and columns that exist.
SELECT 'gold_tables: no table ' || table_name FROM gold_tables
  WHERE table_name NOT IN (SELECT name FROM sqlite_master WHERE type IN ('table', 'view'));
SELECT 'gold_tables: ' || table_name || ' has no column ' || quote(entity_column) FROM gold_tables
  WHERE table_name IN (SELECT name FROM sqlite_master) AND entity_column NOT IN (SELECT name FROM pragma_table_info(table_name));
SELECT 'gold_tables: ' || table_name || ' has no column ' || time_column FROM gold_tables
  WHERE time_column IS NOT NULL AND table_name IN (SELECT name FROM sqlite_master)
    AND time_column NOT IN (SELECT name FROM pragma_table_info(table_name));
SELECT 'gold_tables: unknown entity_type ' || quote(entity_type) || ' of ' || table_name FROM gold_tables
  WHERE entity_type IS NULL OR entity_type NOT IN ('Material', 'Case', 'BillingEvent', 'CostCentre');
SELECT 'gold_tables: signals cannot use ' || table_name || ' (not named gold_...)' FROM gold_tables WHERE table_name NOT GLOB 'gold_*';
SELECT 'dimensions: no table ' || quote(table_name) || ' for ' || entity FROM dimensions
  WHERE table_name IS NULL OR table_name NOT IN (SELECT name FROM sqlite_master WHERE type = 'table');
SELECT 'dimensions: entity key not addressable: ' || quote(entity) FROM dimensions
  WHERE entity IS NULL OR entity NOT GLOB '[a-z]*' OR entity GLOB '*[^a-z0-9_]*' OR length(entity) > 64;
SELECT 'taxonomies: taxonomy_id not addressable: ' || quote(taxonomy_id) FROM taxonomies
  WHERE taxonomy_id IS NULL OR taxonomy_id = 'cardinality' OR taxonomy_id NOT GLOB '[a-z0-9]*'
     OR taxonomy_id GLOB '*[^a-z0-9_-]*' OR length(taxonomy_id) > 64;
SELECT 'taxonomy_members: no taxonomy ' || taxonomy_id FROM taxonomy_members
  WHERE taxonomy_id NOT IN (SELECT taxonomy_id FROM taxonomies) GROUP BY taxonomy_id;
SELECT 'taxonomy_members: no node ' || taxonomy_id || '/' || node_id FROM taxonomy_members m
  WHERE NOT EXISTS (SELECT 1 FROM taxonomy_nodes n WHERE n.taxonomy_id = m.taxonomy_id AND n.node_id = m.node_id)
  GROUP BY taxonomy_id, node_id;
SELECT 'taxonomy_members: dim ' || quote(dim) || ' breaks ^[A-Za-z][A-Za-z0-9_]{0,63}$' FROM taxonomy_members
  WHERE dim IS NOT NULL AND (dim NOT GLOB '[A-Za-z]*' OR dim GLOB '*[^A-Za-z0-9_]*' OR length(dim) > 64) GROUP BY dim;
SELECT 'taxonomy_nodes: no parent ' || taxonomy_id || '/' || parent_id FROM taxonomy_nodes c WHERE parent_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM taxonomy_nodes p WHERE p.taxonomy_id = c.taxonomy_id AND p.node_id = c.parent_id);

-- Values the API can carry.
SELECT 'findings: ' || finding_id || ' has ' || quote(probe_id) || ', ' || quote(entity_type) || ', ' || quote(severity) FROM findings
  WHERE probe_id IS NULL OR probe_id GLOB '*[^a-z0-9_]*'
     OR NOT (probe_id GLOB 'probe_[a-z]*' OR probe_id GLOB 'assessment_[a-z]*' OR probe_id GLOB 'hyp_[a-z]*' OR probe_id GLOB 'diag_[a-z]*')
     OR entity_type IS NULL OR entity_type NOT IN ('Material', 'Case', 'BillingEvent', 'CostCentre')
     OR severity IS NULL OR lower(severity) NOT IN ('high', 'medium', 'low');
SELECT 'findings: ' || finding_id || ' time_bucket ' || quote(time_bucket) FROM findings
  WHERE time_bucket IS NOT NULL AND time_bucket NOT GLOB '[0-9][0-9][0-9][0-9]-0[1-9]*' AND time_bucket NOT GLOB '[0-9][0-9][0-9][0-9]-1[0-2]*';
SELECT 'findings: ' || finding_id || ' evidence is not JSON' FROM findings WHERE evidence IS NOT NULL AND NOT json_valid(evidence);
SELECT 'search_items: unknown kind ' || quote(kind) || ' (skipped)' FROM search_items
  WHERE kind IS NULL OR kind NOT IN ('probe', 'hypothesis', 'taxonomy', 'entity', 'smebit', 'bitbundle', 'person', 'dimension', 'glossary')
  GROUP BY kind;
SELECT 'search_items: ' || kind || '/' || quote(item_id) || ' has no item_id or no name' FROM search_items
  WHERE item_id IS NULL OR (coalesce(name_en, '') = '' AND coalesce(name_de, '') = '' AND coalesce(name_fr, '') = '');
SELECT 'search_items: ' || kind || '/' || item_id || ' meta is not a JSON object' FROM search_items
  WHERE meta IS NOT NULL AND (NOT json_valid(meta) OR json_type(meta) <> 'object');
SELECT 'build_info: build_snapshot commit_sha ' || quote(commit_sha) FROM build_info
  WHERE kind = 'build_snapshot'
    AND (commit_sha IS NULL OR length(trim(commit_sha)) NOT BETWEEN 7 AND 64 OR trim(commit_sha) GLOB '*[^0-9a-fA-F]*');
SELECT 'build_info: remote_reference repo ' || quote(repo) || ' ref ' || quote(ref) FROM build_info
  WHERE kind = 'remote_reference'
    AND (coalesce(repo, (SELECT repo FROM build_info WHERE kind = 'build_snapshot'), '') NOT GLOB '?*/?*' OR coalesce(ref, '') = '');
SELECT 'pipeline_artifacts: graph_json is not a JSON object' FROM pipeline_artifacts
  WHERE artifact_key = 'graph_json' AND (content IS NULL OR NOT json_valid(content) OR json_type(content) <> 'object');
SELECT 'report_pdfs: ' || quote(report_key) || ' cannot be requested or has no PDF' FROM report_pdfs
  WHERE report_key IS NULL OR report_key = '' OR report_key GLOB '*[^a-z0-9_]*' OR length(report_key) > 100
     OR typeof(pdf) <> 'blob' OR length(pdf) = 0;
SELECT 'tenant_logo: the first row is not a PNG, JPEG, WebP or SVG image of at most 5 MiB' FROM (SELECT data FROM tenant_logo ORDER BY rowid LIMIT 1)
  WHERE length(data) > 5242880 OR NOT (
    hex(substr(data, 1, 8)) = '89504E470D0A1A0A' OR hex(substr(data, 1, 3)) = 'FFD8FF'
    OR (substr(data, 1, 4) = CAST('RIFF' AS BLOB) AND substr(data, 9, 4) = CAST('WEBP' AS BLOB))
    OR CAST(data AS TEXT) LIKE '%<svg%');
