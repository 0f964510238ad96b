import { expect } from 'chai';
import fs from 'node:fs';
import { call, callWithHost, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /health/live', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers 200 live with the build label, never cached', async () => {
    const res = await call(server.url, '/health/live');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'live', version: res.headers.get('x-build-label') });
    expect(res.headers.get('cache-control')).to.equal('no-store');
  });

  it('answers 200 while the app database and KLS_DIR fail, when readiness and health answer 503', async () => {
    const local = await startTestServer();
    const moved = `${local.deps.config.klsDir}.away`;
    try {
      await local.deps.appDb.close();
      fs.renameSync(local.deps.config.klsDir, moved);
      expect((await call(local.url, '/health')).status).to.equal(503);
      expect((await call(local.url, '/health/ready')).status).to.equal(503);
      expect((await call(local.url, '/health/live')).status).to.equal(200);
    } finally {
      fs.renameSync(moved, local.deps.config.klsDir);
      await local.close();
    }
  });

  it('answers 400 for an undeclared query parameter and 421 for a foreign Host', async () => {
    expectProblem(await call(server.url, '/health/live?verbose=1'), 400);
    expectProblem(await callWithHost(server.url, '/health/live', 'evil.example'), 421);
  });
});
