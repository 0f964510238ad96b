import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /api/probe-builder/load', function () {
  this.timeout(30000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('returns the raw text of a definition of each type', async () => {
    for (const [id, folder] of [['probe_unbilled_cases', 'signals'], ['hyp_revenue_leakage', 'theses'], ['diag_billing_backlog', 'verdicts'], ['assessment_revenue_cycle', 'perspectives']]) {
      const res = await call(server.url, `/api/probe-builder/load?tenant=kantonsspital&probe_id=${id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ probe_id: id, yaml: fs.readFileSync(path.join(server.dataDir, 'afs', folder as string, `${id}.yaml`), 'utf8') });
    }
  });

  it('answers 404 for an unknown definition or tenant', async () => {
    expectProblem(await call(server.url, '/api/probe-builder/load?tenant=kantonsspital&probe_id=probe_no_such_signal'), 404);
    expectProblem(await call(server.url, '/api/probe-builder/load?tenant=no-such-tenant&probe_id=probe_unbilled_cases'), 404);
  });

  it('answers 400 for a probe_id that breaks the pattern (no path escapes) or a missing parameter', async () => {
    for (const id of ['..%2F..%2Fetc%2Fpasswd', 'probe_..%2Fx', 'PROBE_X', 'other_x', 'probe_']) {
      expectProblem(await call(server.url, `/api/probe-builder/load?tenant=kantonsspital&probe_id=${id}`), 400);
    }
    expectProblem(await call(server.url, '/api/probe-builder/load?tenant=kantonsspital'), 400);
  });

  it('answers 409 for an ambiguous tenant slug', async () => {
    expectProblem(await call(server.url, '/api/probe-builder/load?tenant=rehaklinik&probe_id=probe_unbilled_cases'), 409);
  });
});
