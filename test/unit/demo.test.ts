import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { parse } from 'yaml';
import { parseCliArguments } from '../../src/demo/cli.js';
import { computeFindings, matchesCondition, sqliteLike, type FindingRow } from '../../src/demo/evaluate.js';
import { generateDemo, type DemoSummary } from '../../src/demo/generate.js';
import { PNG_SIGNATURE } from '../../src/demo/png.js';
import { SIGNALS, type Condition, type SignalDefinition } from '../../src/demo/signals.js';
import type { ColumnSpec, Row, SqlType } from '../../src/demo/sqlite.js';

/** The tables of docs/kls-format.md, written out here so the test checks the format, not the generator's own schema. */
const SECTION_4_TABLES: Record<string, string[]> = {
  meta: ['key', 'value'],
  tenant_logo: ['mime', 'data'],
  build_info: ['kind', 'repo', 'ref', 'commit_sha', 'recorded_at'],
  findings: ['finding_id', 'probe_id', 'entity_type', 'entity_id', 'time_bucket', 'severity', 'money_at_risk', 'evidence'],
  search_items: ['kind', 'item_id', 'name_en', 'name_de', 'name_fr', 'description_en', 'description_de', 'description_fr', 'meta'],
  gold_tables: ['table_name', 'entity_type', 'entity_column', 'time_column', 'label_en', 'label_de', 'label_fr'],
  taxonomies: ['taxonomy_id', 'name_en', 'name_de', 'name_fr'],
  taxonomy_nodes: ['taxonomy_id', 'node_id', 'parent_id', 'name_en', 'name_de', 'name_fr'],
  taxonomy_members: ['taxonomy_id', 'node_id', 'member_id', 'dim', 'name_en', 'name_de', 'name_fr'],
  dimensions: ['entity', 'table_name', 'label_en', 'label_de', 'label_fr'],
  pipeline_artifacts: ['artifact_key', 'content'],
  report_pdfs: ['report_key', 'title', 'pdf', 'created_at'],
};

const FIXTURE_TENANTS = ['ost.kantonsspital', 'ost.rehaklinik', 'west.hopital-cantonal', 'west.rehaklinik'];
const SEARCH_KINDS = ['probe', 'hypothesis', 'taxonomy', 'entity', 'smebit', 'bitbundle', 'person', 'dimension', 'glossary'];
const OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not_in', 'is_null', 'not_null', 'like'];
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const ROWS = 120;
const EXTRA_SEARCH_ITEMS = 90;

function open(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true });
}

function columnsOf(db: Database.Database, table: string): { name: string; type: string }[] {
  return db.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(table) as { name: string; type: string }[];
}

function tableSpecOf(db: Database.Database, table: string): { name: string; columns: ColumnSpec[]; primaryKey: string[] } {
  return { name: table, columns: columnsOf(db, table).map((column) => ({ name: column.name, type: column.type as SqlType })), primaryKey: [] };
}

function readSignals(afsDir: string): SignalDefinition[] {
  return SIGNALS.map((signal) => parse(fs.readFileSync(path.join(afsDir, 'signals', `${signal.probe_id}.yaml`), 'utf8')) as SignalDefinition);
}

/** A straightforward compilation of a signal to SQLite, to check the JS evaluator against SQLite itself. */
function signalSql(signal: SignalDefinition): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const literal = (value: unknown): string => {
    params.push(typeof value === 'boolean' ? Number(value) : value);
    return '?';
  };
  const condition = (c: Condition): string => {
    const column = `"${c.column}"`;
    switch (c.op) {
      case 'is_null': return `${column} IS NULL`;
      case 'not_null': return `${column} IS NOT NULL`;
      case 'in': case 'not_in': {
        const list = (Array.isArray(c.value) ? c.value : [c.value]).map(literal).join(', ');
        return `${column} ${c.op === 'in' ? 'IN' : 'NOT IN'} (${list})`;
      }
      case 'like': return `${column} LIKE ${literal(c.value)}`;
      default: return `${column} ${c.op} ${literal(c.value)}`;
    }
  };
  const { contract } = signal;
  const cases = contract.severity.map((rule) => (rule.when ? `WHEN ${condition(rule.when)} THEN '${rule.level}'` : `ELSE '${rule.level}'`)).join(' ');
  const severityParams = params.splice(0);
  const where = (contract.where ?? []).map(condition).join(' AND ') || '1';
  const evidence = (contract.evidence ?? []).map((column) => `'${column}', "${column}"`).join(', ');
  const sql = `SELECT "${contract.entity_id}" AS entity_id,
      ${contract.time_bucket ? `substr("${contract.time_bucket}", 1, 7)` : 'NULL'} AS time_bucket,
      CASE ${cases} END AS severity,
      ${contract.money_at_risk ? `coalesce("${contract.money_at_risk}", 0)` : '0'} AS money_at_risk,
      json_object(${evidence}) AS evidence
    FROM "${contract.source}" WHERE ${where} ORDER BY "${contract.entity_id}", rowid`;
  return { sql, params: [...severityParams, ...params] };
}

function dump(file: string, table: string): unknown[] {
  const db = open(file);
  try {
    return db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).raw().all();
  } finally {
    db.close();
  }
}

describe('demo data generator', function () {
  this.timeout(20000);
  const dirs: string[] = [];
  let summary: DemoSummary;
  let secondSummary: DemoSummary;
  const klsOf = (compositeId: string, from: DemoSummary = summary): string => {
    const tenant = from.tenants.find((candidate) => candidate.compositeId === compositeId);
    if (!tenant) throw new Error(`no tenant ${compositeId}`);
    return tenant.file;
  };
  const eachTenant = (check: (db: Database.Database, compositeId: string) => void): void => {
    for (const tenant of summary.tenants) {
      const db = open(tenant.file);
      try {
        check(db, tenant.compositeId);
      } finally {
        db.close();
      }
    }
  };

  before(() => {
    for (let n = 0; n < 2; n++) dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'demo-data-test-')));
    summary = generateDemo({ out: dirs[0] as string, rows: ROWS, searchItems: EXTRA_SEARCH_ITEMS });
    generateDemo({ out: dirs[1] as string, rows: 7 });
    secondSummary = generateDemo({ out: dirs[1] as string, rows: ROWS, searchItems: EXTRA_SEARCH_ITEMS });
  });

  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the four fixture tenants, sis files where the fixture says so and the logo fallback', () => {
    expect(summary.tenants.map((tenant) => tenant.compositeId)).to.deep.equal(FIXTURE_TENANTS);
    const root = dirs[0] as string;
    for (const tenant of summary.tenants) {
      expect(tenant.file).to.equal(path.join(root, 'kls', tenant.pack, tenant.slug, 'kls.sqlite'));
      expect(fs.existsSync(tenant.file)).to.equal(true);
      const hasSis = fs.existsSync(path.join(path.dirname(tenant.file), 'sis.sqlite'));
      expect(hasSis, tenant.compositeId).to.equal(['ost.kantonsspital', 'west.rehaklinik'].includes(tenant.compositeId));
    }
    open(path.join(root, 'kls', 'ost', 'kantonsspital', 'sis.sqlite')).close();
    expect(fs.readFileSync(path.join(root, 'logos', 'hopital-cantonal.svg'), 'utf8')).to.match(/^<svg /);
    expect(fs.readdirSync(root).filter((name) => name.includes('.tmp'))).to.deep.equal([]);
  });

  it('creates every table of docs/kls-format.md with its columns, and the registered Gold and dimension tables', () => {
    eachTenant((db, id) => {
      for (const [table, columns] of Object.entries(SECTION_4_TABLES)) {
        expect(columnsOf(db, table).map((column) => column.name), `${id} ${table}`).to.deep.equal(columns);
      }
      const gold = db.prepare('SELECT * FROM gold_tables').all() as Record<string, string | null>[];
      expect(new Set(gold.map((row) => row['entity_type']))).to.deep.equal(new Set(['Material', 'Case', 'BillingEvent', 'CostCentre']));
      expect(gold.filter((row) => row['time_column'] === null)).to.have.length(1);
      for (const row of gold) {
        expect(row['table_name']).to.match(/^gold_/);
        const names = columnsOf(db, String(row['table_name'])).map((column) => column.name);
        expect(names).to.include(row['entity_column']);
        if (row['time_column']) expect(names).to.include(row['time_column']);
        expect(row['label_en'] && row['label_de'] && row['label_fr']).to.be.a('string');
      }
      const dims = db.prepare('SELECT entity, table_name FROM dimensions ORDER BY entity').raw().all();
      expect(dims).to.deep.equal([['cost_centres', 'dim_cost_centres'], ['materials', 'dim_materials']]);
      expect(columnsOf(db, 'dim_cost_centres').map((column) => column.name)).to.include.members(['cost_centre_id', 'active', 'budget_chf']);
      expect(columnsOf(db, 'dim_materials').map((column) => column.name)).to.include.members(['material_id', 'is_implant', 'note']);
    });
  });

  it('holds the identifiers the contract examples use in every tenant', () => {
    eachTenant((db, id) => {
      const count = (sql: string, ...params: unknown[]): number => (db.prepare(sql).pluck().get(...params) as number);
      const meta = Object.fromEntries(db.prepare('SELECT key, value FROM meta').raw().all() as [string, string][]);
      expect(meta).to.deep.include({ tenant_id: id.split('.')[1], pack: id.split('.')[0], built_at: '2026-11-01T06:00:00Z', kls_version: '1' });
      expect(db.prepare("SELECT discharged_on FROM gold_cases WHERE case_id = 'C-100001'").pluck().get()).to.match(/^2026-10-/);
      expect(count("SELECT count(*) FROM gold_case_costs WHERE case_id = 'C-100001'")).to.be.greaterThan(1);
      expect(count("SELECT count(*) FROM gold_material_movements WHERE material_id = 'M-2001'")).to.equal(35);
      for (const table of ['gold_cost_centres', 'dim_cost_centres']) expect(count(`SELECT count(*) FROM ${table} WHERE cost_centre_id = 'KST-4100'`)).to.be.greaterThan(0);
      expect(count("SELECT count(*) FROM gold_billing_events WHERE billing_event_id = 'BE-500001'")).to.equal(1);
      expect(count("SELECT count(*) FROM findings WHERE finding_id = 'F-000001'")).to.equal(1);
      expect(db.prepare('SELECT report_key FROM report_pdfs ORDER BY report_key').pluck().all()).to.deep.equal(['monthly_controlling_2026_10', 'quarterly_billing_2026_q3']);
      expect(db.prepare('SELECT artifact_key FROM pipeline_artifacts ORDER BY artifact_key').pluck().all()).to.deep.equal(['graph_html', 'graph_json']);
      const graph = JSON.parse(String(db.prepare("SELECT content FROM pipeline_artifacts WHERE artifact_key = 'graph_json'").pluck().get()));
      expect(graph.nodes.map((node: { layer: string }) => node.layer)).to.include.members(['bronze', 'silver', 'gold']);
      expect(String(db.prepare("SELECT content FROM pipeline_artifacts WHERE artifact_key = 'graph_html'").pluck().get())).to.match(/^<!DOCTYPE html>/).and.not.match(/https?:/);
      expect(db.prepare('SELECT taxonomy_id FROM taxonomies ORDER BY 1').pluck().all()).to.deep.equal(['cost_structure', 'drg_groups', 'service_lines']);
      expect(db.prepare("SELECT node_id FROM taxonomy_nodes WHERE taxonomy_id = 'cost_structure' AND parent_id = 'personnel'").pluck().all()).to.include.members(['physicians', 'nursing']);
      expect(count("SELECT count(*) FROM taxonomy_nodes WHERE taxonomy_id = 'service_lines' AND node_id = 'surgery'")).to.equal(1);
      expect(db.prepare("SELECT taxonomy_id || '/' || node_id FROM taxonomy_members WHERE member_id = 'KST-4100' AND dim = 'CostCentre' ORDER BY 1").pluck().all())
        .to.deep.equal(['cost_structure/physicians', 'service_lines/orthopaedics', 'service_lines/surgery']);
      const probes = db.prepare("SELECT item_id FROM search_items WHERE kind = 'probe'").pluck().all();
      expect(probes).to.include.members(['probe_unbilled_cases', 'probe_late_billing', 'probe_material_overuse', 'probe_cost_centre_overrun']);
      expect(db.prepare("SELECT item_id FROM search_items WHERE kind = 'hypothesis'").pluck().all()).to.include('hyp_revenue_leakage');
    });
    const buildKinds = (compositeId: string): unknown[] => {
      const db = open(klsOf(compositeId));
      try {
        return db.prepare('SELECT kind FROM build_info ORDER BY kind').pluck().all();
      } finally {
        db.close();
      }
    };
    expect(buildKinds('ost.kantonsspital')).to.deep.equal(['build_snapshot', 'remote_reference']);
    expect(buildKinds('ost.rehaklinik')).to.deep.equal(['build_snapshot']);
    expect(buildKinds('west.hopital-cantonal')).to.deep.equal([]);
    expect(buildKinds('west.rehaklinik')).to.deep.equal(['build_snapshot', 'remote_reference']);
    const db = open(klsOf('ost.kantonsspital'));
    expect(db.prepare("SELECT * FROM build_info WHERE kind = 'build_snapshot'").get()).to.deep.include({ repo: 'kls-demo/kantonsspital-pipeline', recorded_at: '2026-11-01T06:00:00Z' });
    expect(db.prepare("SELECT commit_sha FROM build_info WHERE kind = 'build_snapshot'").pluck().get()).to.match(/^[0-9a-f]{40}$/);
    expect(db.prepare("SELECT ref, commit_sha FROM build_info WHERE kind = 'remote_reference'").get()).to.deep.equal({ ref: 'main', commit_sha: null });
    db.close();
  });

  it('indexes all nine search kinds with several items each, JSON-object meta and the extra generated items', () => {
    eachTenant((db) => {
      const kinds = db.prepare('SELECT kind, count(*) AS n FROM search_items GROUP BY kind').all() as { kind: string; n: number }[];
      expect(kinds.map((row) => row.kind).sort()).to.deep.equal([...SEARCH_KINDS].sort());
      for (const row of kinds) expect(row.n, row.kind).to.be.at.least(2);
      for (const meta of db.prepare('SELECT meta FROM search_items').pluck().all() as string[]) {
        const parsed: unknown = JSON.parse(meta);
        expect(parsed).to.be.an('object').and.not.be.an('array');
      }
      expect(db.prepare("SELECT count(*) FROM search_items WHERE item_id LIKE '%\\_gen\\_%' ESCAPE '\\'").pluck().get()).to.equal(EXTRA_SEARCH_ITEMS);
      expect(db.prepare("SELECT name_en, name_de, name_fr FROM search_items WHERE kind = 'glossary' AND item_id = 'glossary_fallpauschale'").get())
        .to.deep.equal({ name_en: 'Case flat rate', name_de: 'Fallpauschale', name_fr: 'Forfait par cas' });
      expect(db.prepare("SELECT count(*) FROM search_items WHERE name_fr LIKE '%Coût%'").pluck().get()).to.be.at.least(2);
      expect(db.prepare('SELECT count(*) FROM search_items WHERE name_fr IS NULL').pluck().get()).to.be.at.least(1);
    });
  });

  it('writes AFS files in the layout of docs/signal-language.md, the signals being the generator data', () => {
    const afsDir = path.join(dirs[0] as string, 'afs');
    expect(summary.afsFiles.map((file) => path.relative(afsDir, file)).sort()).to.deep.equal([
      'perspectives/assessment_revenue_cycle.yaml', 'signals/probe_cost_centre_overrun.yaml', 'signals/probe_late_billing.yaml',
      'signals/probe_material_overuse.yaml', 'signals/probe_unbilled_cases.yaml', 'theses/hyp_revenue_leakage.yaml', 'verdicts/diag_billing_backlog.yaml',
    ]);
    expect(readSignals(afsDir)).to.deep.equal(SIGNALS);
    expect(fs.readFileSync(path.join(afsDir, 'signals', 'probe_unbilled_cases.yaml'), 'utf8'))
      .to.contain('    - {column: billed, op: "=", value: 0}\n    - {column: status, op: in, value: [closed, discharged]}\n');
    expect(parse(fs.readFileSync(path.join(afsDir, 'theses', 'hyp_revenue_leakage.yaml'), 'utf8'))).to.deep.equal({
      probe_id: 'hyp_revenue_leakage', type: 'thesis',
      name: { en: 'Revenue leaks between discharge and billing', de: 'Erlöse gehen zwischen Austritt und Abrechnung verloren', fr: 'Des recettes se perdent entre la sortie et la facturation' },
      contract: { signals: ['probe_unbilled_cases'] },
    });
    const used = new Set<string>();
    for (const signal of SIGNALS) {
      const { contract } = signal;
      for (const id of [contract.source, contract.entity_id, contract.time_bucket, contract.money_at_risk, ...(contract.evidence ?? [])]) {
        if (id !== undefined) expect(id).to.match(IDENTIFIER);
      }
      const conditions = [...(contract.where ?? []), ...contract.severity.flatMap((rule) => (rule.when ? [rule.when] : []))];
      for (const condition of conditions) {
        expect(OPERATORS).to.include(condition.op);
        expect(condition.column).to.match(IDENTIFIER);
        used.add(condition.op);
      }
      expect(contract.severity.at(-1)?.when).to.equal(undefined);
      expect(contract.severity.slice(0, -1).every((rule) => rule.when !== undefined)).to.equal(true);
    }
    expect([...used]).to.include.members(['=', 'in', '>', '>=', 'not_null', 'like']);
    for (const type of ['perspectives', 'verdicts']) {
      for (const file of fs.readdirSync(path.join(afsDir, type))) {
        const doc = parse(fs.readFileSync(path.join(afsDir, type, file), 'utf8')) as Record<string, unknown>;
        expect(doc['type']).to.equal(type === 'perspectives' ? 'perspective' : 'verdict');
        expect(doc).to.include.keys('probe_id', 'name', 'contract');
      }
    }
  });

  it('has findings of every severity for every signal in every tenant, numbered from F-000001', () => {
    eachTenant((db, id) => {
      const ids = db.prepare('SELECT finding_id FROM findings ORDER BY rowid').pluck().all() as string[];
      expect(ids.slice(0, 2)).to.deep.equal(['F-000001', 'F-000002']);
      expect(ids).to.deep.equal(ids.map((_, index) => `F-${String(index + 1).padStart(6, '0')}`));
      expect(db.prepare('SELECT DISTINCT severity FROM findings ORDER BY 1').pluck().all(), id).to.deep.equal(['high', 'low', 'medium']);
      for (const signal of SIGNALS) {
        expect(db.prepare('SELECT count(*) FROM findings WHERE probe_id = ?').pluck().get(signal.probe_id), `${id} ${signal.probe_id}`).to.be.greaterThan(0);
      }
      expect(db.prepare("SELECT entity_id FROM findings WHERE finding_id = 'F-000001'").pluck().get()).to.equal('C-100001');
    });
  });

  it('reproduces every stored finding by evaluating the AFS signal files against the stored Gold rows', () => {
    const signals = readSignals(path.join(dirs[0] as string, 'afs'));
    eachTenant((db, id) => {
      const tables = signals.map((signal) => ({
        spec: tableSpecOf(db, signal.contract.source),
        rows: db.prepare(`SELECT * FROM "${signal.contract.source}" ORDER BY rowid`).all() as Row[],
      }));
      const stored = db.prepare('SELECT * FROM findings ORDER BY finding_id').all() as FindingRow[];
      expect(computeFindings(signals, tables), id).to.deep.equal(stored);
    });
  });

  it('gives exactly the rows a straightforward SQLite compilation of each signal gives', () => {
    const signals = readSignals(path.join(dirs[0] as string, 'afs'));
    eachTenant((db, id) => {
      for (const signal of signals) {
        const { sql, params } = signalSql(signal);
        const expected = db.prepare(sql).all(...params);
        const stored = db.prepare('SELECT entity_id, time_bucket, severity, money_at_risk, evidence FROM findings WHERE probe_id = ? ORDER BY finding_id').all(signal.probe_id);
        expect(stored, `${id} ${signal.probe_id}`).to.deep.equal(expected);
      }
    });
  });

  it('follows SQLite for LIKE and NULL in the evaluator', () => {
    const db = new Database(':memory:');
    const pairs: [string, string][] = [['Implant', 'implant%'], ['IMPLANT-X', 'implant_x'], ['Émail', 'émail'], ['émail', 'ÉMAIL'], ['KST-4100', 'kst-4_00'],
      ['a.b', 'a_b'], ['a+b', 'a+b'], ['(x)', '(%)'], ['line\nbreak', 'line%'], ['abc', 'ab'], ['', '%'], ['ß', 'SS']];
    for (const [text, pattern] of pairs) {
      expect(sqliteLike(text, pattern), `${text} LIKE ${pattern}`).to.equal(db.prepare('SELECT ? LIKE ?').pluck().get(text, pattern) === 1);
    }
    db.close();
    for (const op of ['=', '!=', '<', '<=', '>', '>=', 'like', 'in', 'not_in'] as const) {
      expect(matchesCondition(null, 'TEXT', { column: 'x', op, value: op === 'in' || op === 'not_in' ? ['a'] : 'a' }), op).to.equal(false);
    }
    expect(matchesCondition(null, 'TEXT', { column: 'x', op: 'is_null' })).to.equal(true);
    expect(matchesCondition(3, 'INTEGER', { column: 'x', op: '>', value: '2' })).to.equal(true);
  });

  it('stores a real PNG logo, an SVG logo and valid PDF reports', () => {
    const db = open(klsOf('ost.kantonsspital'));
    const logo = db.prepare('SELECT mime, data FROM tenant_logo').get() as { mime: string; data: Buffer };
    expect(logo.mime).to.equal('image/png');
    expect(logo.data.subarray(0, 8).equals(PNG_SIGNATURE)).to.equal(true);
    expect(logo.data.subarray(12, 16).toString('ascii')).to.equal('IHDR');
    expect(logo.data.subarray(-8, -4).toString('ascii')).to.equal('IEND');
    const pdfs = db.prepare('SELECT pdf FROM report_pdfs').pluck().all() as Buffer[];
    db.close();
    for (const pdf of pdfs) {
      const text = pdf.toString('latin1');
      expect(text.startsWith('%PDF-')).to.equal(true);
      expect(text.endsWith('%%EOF')).to.equal(true);
      const startxref = Number(/startxref\n(\d+)\n%%EOF$/.exec(text)?.[1]);
      expect(text.slice(startxref, startxref + 4)).to.equal('xref');
      const entries = text.slice(startxref).split('\n').slice(2).filter((line) => / 00000 n\r$/.test(line));
      entries.forEach((entry, index) => {
        const offset = Number(entry.slice(0, 10));
        expect(text.slice(offset, offset + 12)).to.match(new RegExp(`^${index + 1} 0 obj\\n`));
      });
      const length = Number(/\/Length (\d+)/.exec(text)?.[1]);
      const streamStart = text.indexOf('stream\n') + 'stream\n'.length;
      expect(text.slice(streamStart + length, streamStart + length + 10)).to.equal('\nendstream');
    }
    const reha = open(klsOf('ost.rehaklinik'));
    const svg = reha.prepare('SELECT mime, data FROM tenant_logo').get() as { mime: string; data: Buffer };
    reha.close();
    expect(svg.mime).to.equal('image/svg+xml');
    expect(svg.data.toString('utf8')).to.match(/^<svg /);
    for (const id of ['west.hopital-cantonal', 'west.rehaklinik']) {
      const other = open(klsOf(id));
      expect(other.prepare('SELECT count(*) FROM tenant_logo').pluck().get(), id).to.equal(0);
      other.close();
    }
  });

  it('is deterministic: a second run (over an earlier one) gives the same rows', () => {
    const tables = ['meta', 'build_info', 'findings', 'gold_cases', 'gold_material_movements', 'search_items', 'taxonomy_members', 'dim_materials', 'report_pdfs', 'tenant_logo', 'pipeline_artifacts'];
    for (const compositeId of FIXTURE_TENANTS) {
      for (const table of tables) {
        expect(dump(klsOf(compositeId, secondSummary), table), `${compositeId} ${table}`).to.deep.equal(dump(klsOf(compositeId), table));
      }
    }
  });

  it('honours the rows option and puts CSV- and formula-sensitive cells into dim_materials', () => {
    eachTenant((db) => {
      expect(db.prepare('SELECT count(*) FROM dim_materials').pluck().get()).to.equal(ROWS);
      const notes = db.prepare('SELECT note FROM dim_materials WHERE note IS NOT NULL').pluck().all() as string[];
      for (const start of ['=', '+', '-', '@']) expect(notes.some((note) => note.startsWith(start)), start).to.equal(true);
      expect(notes.some((note) => note.includes(',') && note.includes('"'))).to.equal(true);
      expect(notes.some((note) => note.includes('\n'))).to.equal(true);
      expect(db.prepare('SELECT count(*) FROM dim_materials WHERE name_fr IS NULL').pluck().get()).to.be.greaterThan(0);
      expect(db.prepare('SELECT DISTINCT is_implant FROM dim_materials ORDER BY 1').pluck().all()).to.deep.equal([0, 1]);
      expect(db.prepare('SELECT DISTINCT active FROM dim_cost_centres ORDER BY 1').pluck().all()).to.deep.equal([0, 1]);
    });
  });

  it('makes cross-taxonomy questions non-trivial (shared members, double membership, fan-out 1, 2 and 3)', () => {
    eachTenant((db) => {
      const fanout = db.prepare(`
        SELECT a.node_id, count(DISTINCT b.node_id) AS targets FROM taxonomy_members a
        JOIN taxonomy_members b ON b.member_id = a.member_id AND b.taxonomy_id = 'service_lines'
        WHERE a.taxonomy_id = 'cost_structure' GROUP BY a.node_id`).all() as { node_id: string; targets: number }[];
      expect(fanout.map((row) => row.targets)).to.include.members([1, 2, 3]);
      const doubles = db.prepare(`SELECT taxonomy_id, member_id FROM taxonomy_members GROUP BY taxonomy_id, member_id HAVING count(*) > 1`).all() as { taxonomy_id: string }[];
      expect(new Set(doubles.map((row) => row.taxonomy_id))).to.include.members(['cost_structure', 'service_lines']);
      for (const [a, b] of [['cost_structure', 'service_lines'], ['service_lines', 'cost_structure'], ['drg_groups', 'service_lines']]) {
        const only = db.prepare(`SELECT count(DISTINCT member_id) FROM taxonomy_members WHERE taxonomy_id = ? AND member_id NOT IN (SELECT member_id FROM taxonomy_members WHERE taxonomy_id = ?)`).pluck().get(a, b);
        expect(only, `${a} without ${b}`).to.be.greaterThan(0);
      }
      expect(db.prepare('SELECT DISTINCT dim FROM taxonomy_members ORDER BY 1').pluck().all()).to.include.members(['Case', 'CostCentre', 'Material']);
    });
  });

  it('adds tenants beyond the fixtures and rejects bad options and arguments', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-data-test-'));
    dirs.push(dir);
    const many = generateDemo({ out: dir, tenants: 6, rows: 3 });
    expect(many.tenants.slice(4).map((tenant) => tenant.compositeId)).to.deep.equal(['ost.spital-05', 'west.spital-06']);
    expect(() => generateDemo({ out: dir, tenants: 2 })).to.throw(RangeError);
    expect(parseCliArguments(['--out', 'x', '--rows', '10', '--tenants=5', '--search-items', '0'])).to.deep.equal({ kind: 'run', options: { out: 'x', rows: 10, tenants: 5, searchItems: 0 } });
    for (const argv of [['--rows', '5'], ['--out', 'x', '--rows', '0'], ['--out', 'x', '--rows', '1.5'], ['--out', 'x', '--tenants', '2'], ['--out', 'x', '--search-items', '-1'], ['--out'], ['--out', 'x', '--what']]) {
      expect(parseCliArguments(argv).kind, argv.join(' ')).to.equal('error');
    }
  });
});
