import { expect } from 'chai';
import { createView } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describeEachAppDatabase('DELETE /api/views', (db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env() });
  });
  after(async () => server.close());

  it('deletes the view (ok:true), then answers ok:false for it', async () => {
    const view = await createView(server.url, 'kantonsspital');
    const first = await call(server.url, `/api/views?tenant=ost.kantonsspital&view_id=${view.view_id}`, { method: 'DELETE' });
    expect(first.status).to.equal(200);
    expect(first.body).to.deep.equal({ ok: true });
    expect((await call(server.url, '/api/views?tenant=kantonsspital')).body.views).to.deep.equal([]);
    expect((await call(server.url, `/api/views?tenant=kantonsspital&view_id=${view.view_id}`, { method: 'DELETE' })).body).to.deep.equal({ ok: false });
  });

  it('does not delete a view of another tenant', async () => {
    const view = await createView(server.url, 'hopital-cantonal');
    expect((await call(server.url, `/api/views?tenant=kantonsspital&view_id=${view.view_id}`, { method: 'DELETE' })).body).to.deep.equal({ ok: false });
    expect((await call(server.url, '/api/views?tenant=hopital-cantonal')).body.views).to.have.length(1);
  });

  it('answers 400 without view_id, 404 for an unknown tenant, 409 for an ambiguous slug', async () => {
    const view = await createView(server.url, 'kantonsspital');
    expectProblem(await call(server.url, '/api/views?tenant=kantonsspital', { method: 'DELETE' }), 400);
    expectProblem(await call(server.url, `/api/views?tenant=nowhere&view_id=${view.view_id}`, { method: 'DELETE' }), 404);
    expectProblem(await call(server.url, `/api/views?tenant=rehaklinik&view_id=${view.view_id}`, { method: 'DELETE' }), 409);
  });
});
