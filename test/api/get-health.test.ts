import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /health', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers ok in local mode with tenant count, app database and build label', async () => {
    const res = await call(server.url, '/health');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ status: 'ok', mode: 'local' });
    expect(res.body.db).to.deep.equal({ tenants: 4, appDb: 'ok' });
    expect(res.body.sizeMb).to.be.a('number').greaterThan(0);
    expect(res.body.version).to.match(/^v0\.1\.0 \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    expect(res.headers.get('x-build-label')).to.equal(res.body.version);
    expect(res.headers.get('x-request-id')).to.be.a('string');
  });

  it('answers 503 {status:"error"} when KLS_DIR is not readable', async () => {
    const moved = `${server.deps.config.klsDir}.away`;
    fs.renameSync(server.deps.config.klsDir, moved);
    try {
      const res = await call(server.url, '/health');
      expect(res.status).to.equal(503);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body).to.include({ status: 'error', error: 'KLS_DIR is not readable' });
    } finally {
      fs.renameSync(moved, server.deps.config.klsDir);
    }
  });

  it('answers 503 when the app database is closed', async () => {
    const local = await startTestServer();
    try {
      await local.deps.appDb.close();
      const res = await call(local.url, '/health');
      expect(res.status).to.equal(503);
      expect(res.body).to.include({ status: 'error', error: 'app database unreachable' });
    } finally {
      await local.close();
    }
  });

  it('reports degraded while a tenant file cannot be opened', async () => {
    const local = await startTestServer();
    try {
      const bad = path.join(local.deps.config.klsDir, 'ost', 'kaputt');
      fs.mkdirSync(bad, { recursive: true });
      fs.writeFileSync(path.join(bad, 'kls.sqlite'), 'this is not a database, just text that is long enough '.repeat(20));
      local.deps.tenants.scanLocal();
      const res = await call(local.url, '/health');
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('degraded');
      expect(res.body.db.tenants).to.equal(4);
    } finally {
      await local.close();
    }
  });
});
