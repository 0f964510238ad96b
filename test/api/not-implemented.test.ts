import { expect } from 'chai';
import { NOT_IMPLEMENTED, NOT_IMPLEMENTED_MODES } from '../../src/operations/not-implemented.js';
import { contractOperations } from '../helpers/contract.js';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('operations built and not built', () => {
  let server: TestServer;
  before(async () => {
    // drift must not reach the internet: a closed loopback port gives fetch_error
    server = await startTestServer({ env: { GITHUB_API_URL: 'http://127.0.0.1:9' } });
  });
  after(async () => server.close());

  it('are exactly the operations whose contract declares 501', () => {
    const declared = contractOperations().filter((op) => op.statuses.includes('501')).map((op) => op.operationId);
    expect([...declared].sort()).to.deep.equal([...NOT_IMPLEMENTED, ...Object.keys(NOT_IMPLEMENTED_MODES)].sort());
  });

  it('answers 501 problem+json for listed operations, and a declared status other than 500/501 for all others', async () => {
    const listed = new Set<string>(NOT_IMPLEMENTED);
    for (const op of contractOperations()) {
      const res = await call(server.url, op.exampleUrl, { method: op.method, ...(op.exampleBody === undefined ? {} : { json: op.exampleBody }) });
      if (listed.has(op.operationId)) {
        expectProblem(res, 501);
        expect(res.body.detail, op.operationId).to.include(op.operationId);
      } else {
        expect(op.statuses, `${op.operationId} answered ${res.status}`).to.include(String(res.status));
        expect(res.status, `${op.operationId}: ${res.text.slice(0, 200)}`).to.not.be.oneOf([500, 501]);
      }
    }
  });
});
