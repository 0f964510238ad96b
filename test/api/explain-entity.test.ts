import Database from 'better-sqlite3';
import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { KLS_COLUMNS, dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /api/explain', () => {
  let server: TestServer;
  let data: ReturnType<typeof dataDirWith>;
  const explain = (query: string) => call(server.url, `/api/explain?${query}`);
  const sqlCount = (sql: string, ...values: string[]): number => {
    const db = new Database(data.klsFile('ost.kantonsspital'), { readonly: true });
    try {
      return (db.prepare(sql).get(...values) as { n: number }).n;
    } finally {
      db.close();
    }
  };

  before(async () => {
    data = dataDirWith({
      tenants: {
        'lab.nogold': {},
        'lab.oddgold': {
          gold_tables: {
            columns: KLS_COLUMNS.gold_tables,
            rows: [
              { table_name: 'gold_parts', entity_type: 'Material', entity_column: 'part_id', time_column: 'no_such_column', label_en: 'Parts', label_de: null, label_fr: null },
              { table_name: 'gold_missing', entity_type: 'Material', entity_column: 'part_id', time_column: null, label_en: 'Missing', label_de: null, label_fr: null },
              { table_name: 'gold_wrong_column', entity_type: 'Material', entity_column: 'nope', time_column: null, label_en: 'Wrong', label_de: null, label_fr: null },
            ],
          },
          gold_parts: { columns: 'part_id TEXT, picture BLOB, moved_on TEXT', rows: [{ part_id: 'P-1', picture: Buffer.from([1, 2, 3]), moved_on: '2026-01-05' }] },
          gold_wrong_column: { columns: 'part_id TEXT', rows: [{ part_id: 'P-1' }] },
        },
      },
      broken: ['lab.kaputt'],
    });
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  it('groups the records of a case by Gold table, ordered by table name, with exact counts', async () => {
    const res = await explain('tenant=kantonsspital&entity_type=Case&entity_id=C-100001');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ entity_type: 'Case', entity_id: 'C-100001', time_bucket: null });
    expect(res.body.groups.map((g: { table: string }) => g.table)).to.deep.equal(['gold_case_costs', 'gold_cases']);
    const costs = res.body.groups[0];
    expect(costs.label).to.equal('Case cost lines');
    expect(costs.count).to.equal(sqlCount("SELECT count(*) AS n FROM gold_case_costs WHERE case_id = 'C-100001'"));
    expect(costs.rows).to.have.length(Math.min(20, costs.count));
    expect(costs.rows[0]).to.include({ case_id: 'C-100001' });
  });

  it('counts every matching row but sends at most 20 (M-2001 has 35 movements)', async () => {
    const res = await explain('tenant=kantonsspital&entity_type=Material&entity_id=M-2001');
    const movements = res.body.groups.find((g: { table: string }) => g.table === 'gold_material_movements');
    expect(movements.count).to.equal(35);
    expect(movements.rows).to.have.length(20);
  });

  it('filters tables with a time column by time_bucket and leaves the others unfiltered', async () => {
    const res = await explain('tenant=kantonsspital&entity_type=Material&entity_id=M-2001&time_bucket=2026-10');
    const byTable = Object.fromEntries(res.body.groups.map((g: { table: string; count: number }) => [g.table, g.count]));
    expect(byTable['gold_material_movements']).to.equal(
      sqlCount("SELECT count(*) AS n FROM gold_material_movements WHERE material_id = 'M-2001' AND substr(moved_on, 1, 7) = '2026-10'"),
    );
    expect(byTable['gold_material_stock']).to.equal(sqlCount("SELECT count(*) AS n FROM gold_material_stock WHERE material_id = 'M-2001'"));
    expect(res.body.time_bucket).to.equal('2026-10');
  });

  it('searches every Gold table without entity_type and labels in the requested locale', async () => {
    const res = await explain('tenant=kantonsspital&entity_id=KST-4100&locale=de');
    expect(res.body.entity_type).to.equal(null);
    const labels = res.body.groups.map((g: { label: string }) => g.label);
    expect(labels).to.include('Kostenstellen Budget und Ist');
  });

  it('answers empty groups for an unknown entity and a tenant file without gold_tables', async () => {
    expect((await explain('tenant=kantonsspital&entity_id=NOPE')).body.groups).to.deep.equal([]);
    expect((await explain('tenant=lab.nogold&entity_id=C-100001')).body.groups).to.deep.equal([]);
  });

  it('ignores registry entries naming missing tables or columns, falls back to English labels, sends BLOBs as base64', async () => {
    const res = await explain('tenant=lab.oddgold&entity_id=P-1&time_bucket=2026-03&locale=fr');
    expect(res.status).to.equal(200);
    expect(res.body.groups).to.deep.equal([{ table: 'gold_parts', label: 'Parts', count: 1, rows: [{ part_id: 'P-1', picture: 'AQID', moved_on: '2026-01-05' }] }]);
  });

  it('answers 400 for a missing entity_id, a bad time_bucket or entity_type', async () => {
    expectProblem(await explain('tenant=kantonsspital'), 400);
    expectProblem(await explain('tenant=kantonsspital&entity_id=C-100001&time_bucket=2026-13'), 400);
    expectProblem(await explain('tenant=kantonsspital&entity_id=C-100001&entity_type=Patient'), 400);
  });

  it('answers 404, 409 and 503 for unknown, ambiguous and unusable tenants', async () => {
    expectProblem(await explain('tenant=no-such-tenant&entity_id=C-100001'), 404);
    expectProblem(await explain('tenant=rehaklinik&entity_id=C-100001'), 409);
    expectProblem(await explain('tenant=lab.kaputt&entity_id=C-100001'), 503);
  });
});
