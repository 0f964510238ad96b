import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { signalYaml } from '../helpers/signals.js';

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

  it('answers 404 for a file or a folder that is a symbolic link, which it does not follow', async () => {
    const outside = tempDir('ads-signal-load-outside-');
    try {
      fs.writeFileSync(path.join(outside.dir, 'probe_outside.yaml'), signalYaml('probe_outside'));
      fs.symlinkSync(path.join(outside.dir, 'probe_outside.yaml'), path.join(server.dataDir, 'afs', 'signals', 'probe_linked.yaml'));
      const linked = await call(server.url, '/api/probe-builder/load?tenant=kantonsspital&probe_id=probe_linked');
      expectProblem(linked, 404);
      expect(linked.body.detail).to.equal('the file of definition "probe_linked" is a symbolic link, which the server does not follow');
      expect(linked.text).not.to.include('probe_outside');
      fs.writeFileSync(path.join(outside.dir, 'hyp_outside.yaml'), 'probe_id: hyp_outside\n');
      fs.rmSync(path.join(server.dataDir, 'afs', 'theses'), { recursive: true });
      fs.symlinkSync(outside.dir, path.join(server.dataDir, 'afs', 'theses'));
      expectProblem(await call(server.url, '/api/probe-builder/load?tenant=kantonsspital&probe_id=hyp_outside'), 404);
    } finally {
      outside.remove();
    }
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
