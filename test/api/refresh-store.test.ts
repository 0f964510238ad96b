import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('POST|GET /api/refresh in local mode', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers skipped with a reason, by POST with a JSON body, POST without body and GET', async () => {
    for (const res of [
      await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'kantonsspital' } }),
      await call(server.url, '/api/refresh', { method: 'POST' }),
      await call(server.url, '/api/refresh?scope=pack&pack=ost'),
    ]) {
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('skipped');
      expect(res.body.reason).to.match(/KLS store mode/);
    }
  });

  it('answers 400 when the scope names no pack or tenant, 404 for an unknown one', async () => {
    expectProblem(await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'pack' } }), 400);
    expectProblem(await call(server.url, '/api/refresh?scope=tenant'), 400);
    expectProblem(await call(server.url, '/api/refresh?scope=pack&pack=nord'), 404);
    expectProblem(await call(server.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'nowhere' } }), 404);
    expectProblem(await call(server.url, '/api/refresh?scope=tenant&tenant=rehaklinik'), 409);
    expectProblem(await call(server.url, '/api/refresh?scope=everything'), 400);
  });
});
