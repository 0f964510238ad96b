import { expect } from 'chai';
import { createView } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ManualClock } from '../helpers/clock.js';

describeEachAppDatabase('GET /api/views', (db) => {
  const clock = new ManualClock();
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env(), now: clock.now });
  });
  after(async () => server.close());

  it('lists the tenant views newest first, the same for a slug and its composite ID, filtered by entity', async () => {
    clock.set(Date.parse('2026-03-01T10:00:00.000Z'));
    const older = await createView(server.url, 'kantonsspital', 'cost_centres', 'Older');
    clock.advance(1);
    const newer = await createView(server.url, 'ost.kantonsspital', 'materials', 'Newer');
    expect([older.updated_at, newer.updated_at]).to.deep.equal(['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.001Z']);
    await createView(server.url, 'hopital-cantonal', 'cost_centres', 'Other tenant');
    for (const tenant of ['kantonsspital', 'ost.kantonsspital']) {
      const res = await call(server.url, `/api/views?tenant=${tenant}`);
      expect(res.status).to.equal(200);
      expect(res.body.views.map((v: { view_id: string }) => v.view_id)).to.deep.equal([newer.view_id, older.view_id]);
      expect(res.body.views[0]).to.include({ tenant_id: 'ost.kantonsspital', entity: 'materials', name: 'Newer', author: null });
    }
    const filtered = await call(server.url, '/api/views?tenant=kantonsspital&entity=cost_centres');
    expect(filtered.body.views.map((v: { view_id: string }) => v.view_id)).to.deep.equal([older.view_id]);
  });

  it('answers an empty list for a tenant without views', async () => {
    const res = await call(server.url, '/api/views?tenant=west.rehaklinik');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ views: [] });
  });

  it('answers 400 without tenant, 404 for an unknown tenant, 409 for an ambiguous slug', async () => {
    expectProblem(await call(server.url, '/api/views'), 400);
    expectProblem(await call(server.url, '/api/views?tenant=kantonsspital&entity=Bad%20Entity'), 400);
    expectProblem(await call(server.url, '/api/views?tenant=nowhere'), 404);
    expectProblem(await call(server.url, '/api/views?tenant=rehaklinik'), 409);
  });
});
