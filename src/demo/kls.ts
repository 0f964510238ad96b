import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { localized } from './content.js';
import { DIMENSION_REGISTRY, DIMENSION_SPECS, costCentreDimensionRows, materialDimensionValues } from './dimensions.js';
import { computeFindings } from './evaluate.js';
import { tempPathBeside } from './files.js';
import { generateGold } from './gold.js';
import { pngLogo, svgLogo } from './logos.js';
import { pipelineGraph, pipelineHtml } from './pipeline.js';
import { createRandom } from './random.js';
import { reportRows } from './reports.js';
import { KLS_TABLES } from './schema.js';
import { extraSearchValues } from './search-extra.js';
import { searchItemRows } from './search.js';
import { SIGNALS } from './signals.js';
import { createTable, insertValues, writeTable, type Row } from './sqlite.js';
import { buildTaxonomies } from './taxonomies.js';
import { DEMO_BUILT_AT, type DemoTenant } from './tenants.js';

/** Sizes of the generated tables. */
export interface KlsSizes {
  rows: number;
  searchItems: number;
}

/** Progress callback: `units` more work units are done; `label` names the current step. */
export type ReportWork = (units: number, label: string) => void;

/** Work units reported by writeTenantKls besides one per dimension row and extra search item. */
export const KLS_FIXED_STEPS = 9;

/** Builds a SQLite file at a temporary path beside `target`, then renames it over `target`. */
export function buildSqliteFile(target: string, fill: (db: Database.Database) => void): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temp = tempPathBeside(target);
  fs.rmSync(temp, { force: true });
  const db = new Database(temp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    fill(db);
  } finally {
    db.close();
  }
  fs.renameSync(temp, target);
}

/** The deterministic 40-hex commit recorded as a tenant's build snapshot. */
export function buildCommitSha(tenant: DemoTenant): string {
  return createHash('sha1').update(`kls-demo/${tenant.compositeId}@${DEMO_BUILT_AT}`).digest('hex');
}

/** Writes the KLS file of one tenant (every table of docs/kls-format.md). */
export function writeTenantKls(target: string, tenant: DemoTenant, sizes: KlsSizes, report: ReportWork = () => {}): void {
  const gold = generateGold(createRandom(`${tenant.compositeId}:gold`));
  const findings = computeFindings(SIGNALS, gold);
  const cases = gold.find((table) => table.spec.name === 'gold_cases')?.rows ?? [];
  const taxonomies = buildTaxonomies(cases);
  const costCentreRows = costCentreDimensionRows();
  buildSqliteFile(target, (db) => {
    const label = (step: string): string => `${tenant.compositeId}: ${step}`;
    writeTable(db, KLS_TABLES.meta, [
      { key: 'tenant_id', value: tenant.slug },
      { key: 'display_name', value: tenant.displayName },
      { key: 'pack', value: tenant.pack },
      { key: 'built_at', value: DEMO_BUILT_AT },
      { key: 'kls_version', value: '1' },
    ]);
    writeTable(db, KLS_TABLES.tenantLogo, logoRows(tenant));
    writeTable(db, KLS_TABLES.buildInfo, buildInfoRows(tenant));
    report(1, label('meta'));
    writeTable(db, KLS_TABLES.goldTables, gold.map((table) => ({
      table_name: table.spec.name, entity_type: table.entityType, entity_column: table.entityColumn,
      time_column: table.timeColumn, ...localized(table.label, 'label'),
    })));
    for (const table of gold) writeTable(db, table.spec, table.rows, table.spec.primaryKey[0] === table.entityColumn ? [] : [table.entityColumn]);
    report(1, label('gold tables'));
    writeTable(db, KLS_TABLES.findings, findings.map((finding) => ({ ...finding })), ['entity_id']);
    report(1, label('findings'));
    writeTable(db, KLS_TABLES.taxonomies, taxonomies.taxonomies);
    writeTable(db, KLS_TABLES.taxonomyNodes, taxonomies.nodes);
    writeTable(db, KLS_TABLES.taxonomyMembers, taxonomies.members, ['member_id']);
    report(1, label('taxonomies'));
    writeTable(db, KLS_TABLES.searchItems, searchItemRows({ slug: tenant.slug, taxonomies, materialRows: sizes.rows, costCentreRows: costCentreRows.length }));
    insertValues(db, KLS_TABLES.searchItems, extraSearchValues(createRandom(`${tenant.compositeId}:search`), sizes.searchItems),
      (done) => report(50000, label(`search items ${done}`)));
    report(sizes.searchItems % 50000, label('search items'));
    report(1, label('search items'));
    writeTable(db, KLS_TABLES.dimensions, DIMENSION_REGISTRY);
    writeTable(db, DIMENSION_SPECS.costCentres, costCentreRows);
    createTable(db, DIMENSION_SPECS.materials);
    insertValues(db, DIMENSION_SPECS.materials, materialDimensionValues(createRandom(`${tenant.compositeId}:dim`), sizes.rows),
      (done) => report(50000, label(`dim_materials ${done}`)));
    report(sizes.rows % 50000, label('dim_materials'));
    report(1, label('dimensions'));
    const graph = pipelineGraph(gold.map((table) => table.spec.name));
    writeTable(db, KLS_TABLES.pipelineArtifacts, [
      { artifact_key: 'graph_json', content: JSON.stringify(graph) },
      { artifact_key: 'graph_html', content: pipelineHtml(graph, `${tenant.displayName}: data pipeline`) },
    ]);
    report(1, label('pipeline artifacts'));
    writeTable(db, KLS_TABLES.reportPdfs, reportRows(tenant, gold, findings));
    report(1, label('reports'));
  });
  report(1, `${tenant.compositeId}: done`);
}

/** Writes the optional side file `sis.sqlite` (a small valid database). */
export function writeTenantSis(target: string, tenant: DemoTenant): void {
  buildSqliteFile(target, (db) => {
    writeTable(db, { name: 'sis_info', columns: [{ name: 'key', type: 'TEXT' }, { name: 'value', type: 'TEXT' }], primaryKey: ['key'] }, [
      { key: 'tenant_id', value: tenant.slug },
      { key: 'pack', value: tenant.pack },
      { key: 'built_at', value: DEMO_BUILT_AT },
      { key: 'content', value: 'semantic index placeholder' },
    ]);
  });
}

function logoRows(tenant: DemoTenant): Row[] {
  if (tenant.logo === 'db-png') return [{ mime: 'image/png', data: pngLogo(tenant.colour) }];
  if (tenant.logo === 'db-svg') return [{ mime: 'image/svg+xml', data: Buffer.from(svgLogo(tenant.displayName, tenant.colour), 'utf8') }];
  return [];
}

function buildInfoRows(tenant: DemoTenant): Row[] {
  if (tenant.buildInfo === 'none') return [];
  const repo = `kls-demo/${tenant.slug}-pipeline`;
  const rows: Row[] = [{ kind: 'build_snapshot', repo, ref: null, commit_sha: buildCommitSha(tenant), recorded_at: DEMO_BUILT_AT }];
  if (tenant.buildInfo === 'snapshot-and-remote') rows.push({ kind: 'remote_reference', repo, ref: 'main', commit_sha: null, recorded_at: DEMO_BUILT_AT });
  return rows;
}
