import { expect } from 'chai';
import { UNKNOWN_ID, createView, oversizedBody } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ManualClock } from '../helpers/clock.js';

describeEachAppDatabase('PUT /api/views', (db) => {
  const clock = new ManualClock();
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env(), now: clock.now });
  });
  after(async () => server.close());

  it('replaces name and params, sets updated_at, and answers ok:true', async () => {
    clock.set(Date.parse('2026-03-01T10:00:00.000Z'));
    const view = await createView(server.url, 'kantonsspital');
    clock.advance(1);
    const res = await call(server.url, '/api/views', { method: 'PUT', json: { tenant: 'ost.kantonsspital', view_id: view.view_id, name: 'Renamed', params: { sort: 'name' } } });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ ok: true });
    const stored = (await call(server.url, '/api/views?tenant=kantonsspital')).body.views.find((v: { view_id: string }) => v.view_id === view.view_id);
    expect(stored).to.include({ name: 'Renamed', created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.001Z' });
    expect(stored.params).to.deep.equal({ sort: 'name' });
  });

  it('answers ok:false for an unknown view and for a view of another tenant', async () => {
    const view = await createView(server.url, 'kantonsspital');
    expect((await call(server.url, '/api/views', { method: 'PUT', json: { tenant: 'kantonsspital', view_id: UNKNOWN_ID, name: 'x' } })).body).to.deep.equal({ ok: false });
    expect((await call(server.url, '/api/views', { method: 'PUT', json: { tenant: 'hopital-cantonal', view_id: view.view_id, name: 'x' } })).body).to.deep.equal({ ok: false });
  });

  it('answers 400 for a malformed view_id or params beyond 64 KiB', async () => {
    const view = await createView(server.url, 'kantonsspital');
    expectProblem(await call(server.url, '/api/views', { method: 'PUT', json: { tenant: 'kantonsspital', view_id: 'not-a-uuid' } }), 400);
    expectProblem(await call(server.url, '/api/views', { method: 'PUT', json: { tenant: 'kantonsspital', view_id: view.view_id, params: { blob: 'x'.repeat(65_536) } } }), 400);
  });

  it('answers 404, 409, 413 and 415 problems', async () => {
    expectProblem(await call(server.url, '/api/views', { method: 'PUT', json: { tenant: 'nowhere', view_id: UNKNOWN_ID } }), 404);
    expectProblem(await call(server.url, '/api/views', { method: 'PUT', json: { tenant: 'rehaklinik', view_id: UNKNOWN_ID } }), 409);
    expectProblem(await call(server.url, '/api/views', { method: 'PUT', body: oversizedBody(), headers: { 'content-type': 'application/json' } }), 413);
    expectProblem(await call(server.url, '/api/views', { method: 'PUT', body: '{}', headers: { 'content-type': 'text/plain' } }), 415);
  });
});
