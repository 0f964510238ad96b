import { expect } from 'chai';
import { oversizedBody } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describeEachAppDatabase('POST /api/views', (db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env() });
  });
  after(async () => server.close());

  const body = { tenant: 'kantonsspital', entity: 'cost_centres', name: 'Active cost centres by budget', params: { filters: { active: true }, sort: 'budget_chf' } };

  it('stores the view under the composite tenant ID with server-made id and timestamps', async () => {
    const res = await call(server.url, '/api/views', { method: 'POST', json: { ...body, author: 'Anna Muster' } });
    expect(res.status).to.equal(200);
    const view = res.body.view;
    expect(view).to.include({ tenant_id: 'ost.kantonsspital', entity: 'cost_centres', name: body.name, author: 'Anna Muster' });
    expect(view.params).to.deep.equal(body.params);
    expect(view.view_id).to.match(/^[0-9a-f-]{36}$/);
    expect(view.created_at).to.equal(view.updated_at);
    const list = await call(server.url, '/api/views?tenant=ost.kantonsspital');
    expect(list.body.views.map((v: { view_id: string }) => v.view_id)).to.include(view.view_id);
  });

  it('answers 400 for a missing or too long field and for params beyond 64 KiB, storing nothing', async () => {
    const { params: _params, ...withoutParams } = body;
    expectProblem(await call(server.url, '/api/views', { method: 'POST', json: withoutParams }), 400);
    expectProblem(await call(server.url, '/api/views', { method: 'POST', json: { ...body, name: 'n'.repeat(201) } }), 400);
    const big = await call(server.url, '/api/views', { method: 'POST', json: { ...body, tenant: 'hopital-cantonal', params: { blob: 'x'.repeat(65_536) } } });
    expectProblem(big, 400);
    expect(big.body.errors[0]).to.include({ in: 'body', name: 'params' });
    expect((await call(server.url, '/api/views?tenant=hopital-cantonal')).body.views).to.deep.equal([]);
  });

  it('answers 404 for an unknown tenant and 409 for an ambiguous slug', async () => {
    expectProblem(await call(server.url, '/api/views', { method: 'POST', json: { ...body, tenant: 'nowhere' } }), 404);
    expectProblem(await call(server.url, '/api/views', { method: 'POST', json: { ...body, tenant: 'rehaklinik' } }), 409);
  });

  it('answers 413 for a body beyond 1 MiB and 415 for a body that is not JSON', async () => {
    expectProblem(await call(server.url, '/api/views', { method: 'POST', body: oversizedBody(), headers: { 'content-type': 'application/json' } }), 413);
    expectProblem(await call(server.url, '/api/views', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'text/plain' } }), 415);
  });
});
