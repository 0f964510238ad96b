import { expect } from 'chai';
import Database from 'better-sqlite3';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /api/jumpbar', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('lists every tenant with composite ID, display name and source in mode=tenants', async () => {
    const res = await call(server.url, '/api/jumpbar?mode=tenants');
    expect(res.status).to.equal(200);
    expect(res.body.tenants).to.deep.equal([
      { id: 'ost.kantonsspital', name: 'Kantonsspital Ost', source: 'local' },
      { id: 'ost.rehaklinik', name: 'Rehaklinik Ost', source: 'local' },
      { id: 'west.hopital-cantonal', name: 'Hôpital cantonal Ouest', source: 'local' },
      { id: 'west.rehaklinik', name: 'Clinique de réadaptation Ouest', source: 'local' },
    ]);
  });

  it('answers 400 naming the query as a whole when it holds more than 256 parameters, and validates 256 as usual', async () => {
    const query = (parameters: number) => ['mode=tenants', ...Array.from({ length: parameters - 1 }, (_, i) => `p${i}=`)].join('&');
    const tooMany = await call(server.url, `/api/jumpbar?${query(257)}`);
    expectProblem(tooMany, 400);
    expect(tooMany.body.errors).to.deep.equal([{ in: 'query', name: '', message: 'holds 257 parameters; at most 256' }]);
    const atTheBound = await call(server.url, `/api/jumpbar?${query(256)}`);
    expectProblem(atTheBound, 400);
    expect(atTheBound.body.errors).to.deep.equal([{ in: 'query', name: 'p0', message: 'is not allowed here' }]);
  });

  it('summarises findings by severity in mode=summary, matching the KLS', async () => {
    const res = await call(server.url, '/api/jumpbar?mode=summary&tenant=kantonsspital');
    expect(res.status).to.equal(200);
    const db = new Database(path.join(server.deps.config.klsDir, 'ost', 'kantonsspital', 'kls.sqlite'), { readonly: true });
    try {
      const count = (severity: string) => (db.prepare('SELECT count(*) AS n FROM findings WHERE severity = ?').get(severity) as { n: number }).n;
      const money = (db.prepare('SELECT total(money_at_risk) AS m FROM findings').get() as { m: number }).m;
      expect(res.body.summary).to.deep.equal({
        total: count('high') + count('medium') + count('low'),
        high: count('high'),
        medium: count('medium'),
        low: count('low'),
        money: Math.round(money * 100) / 100,
      });
      expect(res.body.summary.high).to.be.greaterThan(0);
    } finally {
      db.close();
    }
  });

  it('answers 400 when tenant or q is missing for their modes', async () => {
    const noTenant = await call(server.url, '/api/jumpbar?mode=summary');
    expectProblem(noTenant, 400);
    expect(noTenant.body.errors).to.deep.equal([{ in: 'query', name: 'tenant', message: 'is required when mode is summary' }]);
    expectProblem(await call(server.url, '/api/jumpbar?tenant=kantonsspital'), 400);
    expectProblem(await call(server.url, '/api/jumpbar?mode=search&tenant=kantonsspital&q='), 400);
  });

  it('answers 400 naming the modes there are, and not the mode that was sent, for an unknown mode', async () => {
    for (const mode of ['everything', 'x'.repeat(2000)]) {
      const res = await call(server.url, `/api/jumpbar?mode=${mode}`);
      expectProblem(res, 400);
      expect(res.body.detail).to.equal('query mode: must be one of: search, tenants, summary');
      expect(res.body.errors).to.deep.equal([{ in: 'query', name: 'mode', message: 'must be one of: search, tenants, summary' }]);
    }
  });

  it('answers 404, 409 for unknown and ambiguous tenants; the 404 says where the tenants are listed', async () => {
    const unknown = await call(server.url, '/api/jumpbar?mode=summary&tenant=nowhere');
    expectProblem(unknown, 404);
    expect(unknown.body.detail).to.equal('unknown tenant "nowhere"; GET /api/jumpbar?mode=tenants lists the tenants you may use');
    expectProblem(await call(server.url, '/api/jumpbar?mode=summary&tenant=rehaklinik'), 409);
  });

  it('answers 503 problem in search and summary mode when the tenant file does not open', async () => {
    const data = dataDirWith({ broken: ['ost.kaputt'] });
    const broken = await startTestServer({ dataDir: data.dir });
    try {
      for (const mode of ['search', 'summary']) {
        const res = await call(broken.url, `/api/jumpbar?mode=${mode}&tenant=ost.kaputt&q=cost`);
        expectProblem(res, 503);
        expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      }
    } finally {
      await broken.close();
      data.remove();
    }
  });
});
