import Database from 'better-sqlite3';
import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { KLS_COLUMNS, dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const finding = (id: string, probeId: string, extra: Record<string, unknown> = {}) => ({
  finding_id: id, probe_id: probeId, entity_type: 'Case', entity_id: 'C-1', time_bucket: '2026-10-14', severity: 'HIGH', money_at_risk: null, evidence: 'not json', ...extra,
});

describe('GET /{tenant}/api/explain/{finding_id}', () => {
  let server: TestServer;
  let data: ReturnType<typeof dataDirWith>;
  before(async () => {
    data = dataDirWith({
      tenants: {
        'lab.nofindings': {},
        'lab.afsonly': {
          findings: {
            columns: KLS_COLUMNS.findings,
            rows: [finding('F-1', 'probe_unbilled_cases'), finding('F-2', 'probe_nobody_knows'), finding('F-3', 'probe_unbilled_cases', { severity: 'critical' })],
          },
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

  it('explains a demo finding: the record, its signal from the KLS and its source records', async () => {
    const res = await call(server.url, '/kantonsspital/api/explain/F-000001');
    expect(res.status).to.equal(200);
    const { finding: record, signal, groups } = res.body.explanation;
    const db = new Database(data.klsFile('ost.kantonsspital'), { readonly: true });
    const row = db.prepare("SELECT * FROM findings WHERE finding_id = 'F-000001'").get() as Record<string, unknown>;
    db.close();
    expect(record).to.deep.equal({ ...row, evidence: JSON.parse(row['evidence'] as string) });
    expect(signal.probe_id).to.equal(row['probe_id']);
    expect(signal.name.en).to.be.a('string').and.not.empty;
    const entity = await call(
      server.url,
      `/api/explain?tenant=kantonsspital&entity_type=${String(row['entity_type'])}&entity_id=${String(row['entity_id'])}&time_bucket=${String(row['time_bucket'])}`,
    );
    expect(groups).to.deep.equal(entity.body.groups);
    expect(groups).to.not.be.empty;
  });

  it('labels groups in the requested locale', async () => {
    const en = await call(server.url, '/kantonsspital/api/explain/F-000001');
    const de = await call(server.url, '/kantonsspital/api/explain/F-000001?locale=de');
    expect(de.body.explanation.groups.map((g: { table: string }) => g.table)).to.deep.equal(en.body.explanation.groups.map((g: { table: string }) => g.table));
    expect(de.body.explanation.groups[0].label).not.to.equal(en.body.explanation.groups[0].label);
  });

  it('normalises the stored finding and takes the signal from the AFS when the KLS has none', async () => {
    const res = await call(server.url, '/lab.afsonly/api/explain/F-1');
    expect(res.status).to.equal(200);
    expect(res.body.explanation.finding).to.deep.equal({
      finding_id: 'F-1', probe_id: 'probe_unbilled_cases', entity_type: 'Case', entity_id: 'C-1',
      time_bucket: '2026-10', severity: 'high', money_at_risk: 0, evidence: 'not json',
    });
    expect(res.body.explanation.signal.name.en).to.equal('Discharged cases not yet billed');
    expect(res.body.explanation.signal.description.fr).to.match(/^Cas clôturés/);
    expect(res.body.explanation.groups).to.deep.equal([]);
  });

  it('sends signal null when neither the KLS nor the AFS knows the signal', async () => {
    const res = await call(server.url, '/lab.afsonly/api/explain/F-2');
    expect(res.status).to.equal(200);
    expect(res.body.explanation.signal).to.equal(null);
  });

  it('answers 404 for an unknown finding, a file without findings, a malformed finding or an unknown tenant', async () => {
    expectProblem(await call(server.url, '/kantonsspital/api/explain/F-999999'), 404);
    expectProblem(await call(server.url, '/lab.nofindings/api/explain/F-000001'), 404);
    const malformed = await call(server.url, '/lab.afsonly/api/explain/F-3');
    expectProblem(malformed, 404);
    expect(malformed.body.detail).to.include('severity');
    expectProblem(await call(server.url, '/no-such-tenant/api/explain/F-000001'), 404);
  });

  it('answers 400, 409 and 503 problems', async () => {
    expectProblem(await call(server.url, '/kantonsspital/api/explain/F-000001?locale=it'), 400);
    expectProblem(await call(server.url, '/rehaklinik/api/explain/F-000001'), 409);
    expectProblem(await call(server.url, '/lab.kaputt/api/explain/F-000001'), 503);
  });
});
