import { expect } from 'chai';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /api/store-status', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers {active:false} in local mode', async () => {
    const res = await call(server.url, '/api/store-status');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ active: false });
  });
});
