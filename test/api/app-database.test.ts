import Database from 'better-sqlite3';
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { scrape } from '../helpers/metrics.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const cell = { cell: { type: 'narrative', text: { en: 'kept' } } };

/** Asks `ask` every 100 ms until it answers `status` (fails after 15 s); that answer. */
function answered(ask: () => ReturnType<typeof call>, status: number): ReturnType<typeof call> {
  return until(
    async () => {
      const res = await ask();
      return res.status === status && res;
    },
    { every: 100, what: `an answer ${status}` },
  );
}

describe('the app database busy or away', function () {
  this.timeout(60_000);

  it('SQLite: a write whose lock is held longer than APP_DB_LOCK_TIMEOUT_MS answers 503 with Retry-After, then succeeds', async () => {
    const data = tempDir('ads-appdb-busy-');
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    const server = await startTestServer({ dataDir: data.dir, env: { APP_DB_LOCK_TIMEOUT_MS: '300' } });
    // another process's write transaction, as a second server would hold it
    const other = new Database(path.join(data.dir, 'app.sqlite'));
    try {
      other.exec('BEGIN IMMEDIATE');
      const refused = await call(server.url, '/kantonsspital/api/notebook/cells', { method: 'POST', json: cell });
      expectProblem(refused, 503);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(refused.body.type).to.equal('https://analytics-desk.example/problems/app-database-unavailable');
      expect((await scrape(server.url)).value('app_db_errors_total', { kind: 'busy' })).to.equal(1);
      other.exec('ROLLBACK');
      expect((await call(server.url, '/kantonsspital/api/notebook/cells', { method: 'POST', json: cell })).status).to.equal(201);
    } finally {
      other.close();
      await server.close();
      data.remove();
    }
  });

  describe('PostgreSQL', () => {
    let postgres: TestPostgres;
    let server: TestServer | null = null;
    before(async () => {
      // a server of its own: these tests stop and start it
      postgres = await startPostgres();
    });
    afterEach(async () => {
      await postgres.start().catch(() => undefined);
      await server?.close();
      server = null;
    });
    after(async () => postgres.close());

    it('starts while the database is down: health 503 names it, collaboration 503, tenant reads work; recovers without a restart', async () => {
      const url = await postgres.createDatabase('down-at-start');
      await postgres.stop();
      server = await startTestServer({ env: { APP_DB_URL: url } });
      const health = await call(server.url, '/health');
      expect(health.status).to.equal(503);
      expect(health.body).to.deep.include({ status: 'error', error: 'app database unreachable' });
      const write = await call(server.url, '/kantonsspital/api/notebook/cells', { method: 'POST', json: cell });
      expectProblem(write, 503);
      expect(write.headers.get('retry-after')).to.equal('5');
      expectProblem(await call(server.url, '/api/views?tenant=kantonsspital'), 503);
      expect((await call(server.url, '/api/jumpbar?mode=summary&tenant=kantonsspital')).status).to.equal(200);
      expect((await call(server.url, '/api/logo/kantonsspital')).status).to.equal(200);

      await postgres.start();
      expect((await answered(() => call(server!.url, '/health'), 200)).status).to.equal(200);
      expect((await call(server.url, '/kantonsspital/api/notebook/cells', { method: 'POST', json: cell })).status).to.equal(201);
    });

    it('answers writes 503 while the database is away, keeps serving tenant reads, and writes again once it is back', async () => {
      server = await startTestServer({ env: { APP_DB_URL: await postgres.createDatabase('away') } });
      expect((await call(server.url, '/kantonsspital/api/notebook/cells', { method: 'POST', json: cell })).status).to.equal(201);
      await postgres.stop();
      const refused = await call(server.url, '/kantonsspital/api/notebook/cells', { method: 'POST', json: cell });
      expectProblem(refused, 503);
      expect(refused.headers.get('retry-after')).to.be.oneOf(['1', '5']);
      expect((await scrape(server.url)).value('app_db_errors_total', { kind: 'unreachable' })).to.be.greaterThan(0);
      expect((await call(server.url, '/health')).status).to.equal(503);
      expect((await call(server.url, '/api/jumpbar?tenant=kantonsspital&q=fall')).status).to.equal(200);
      await postgres.start();
      const written = await answered(() => call(server!.url, '/kantonsspital/api/notebook/cells', { method: 'POST', json: cell }), 201);
      expect(written.status).to.equal(201);
      const cells = JSON.parse(written.body.notebook.cells) as unknown[];
      expect(cells).to.have.length(2);
    });
  });
});
