import { expect } from 'chai';
import { NOT_IMPLEMENTED } from '../../src/http/not-implemented.js';
import { contractOperations } from '../helpers/contract.js';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('operations not implemented in this build', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('are exactly the operations whose contract declares 501', () => {
    const declared = contractOperations().filter((op) => op.statuses.includes('501')).map((op) => op.operationId);
    expect([...declared].sort()).to.deep.equal([...NOT_IMPLEMENTED, 'getJumpbar'].sort());
  });

  it('each answers 501 problem+json to its contract example', async () => {
    const listed = new Set<string>(NOT_IMPLEMENTED);
    const operations = contractOperations().filter((op) => listed.has(op.operationId));
    expect(operations).to.have.length(NOT_IMPLEMENTED.length);
    for (const op of operations) {
      const res = await call(server.url, op.exampleUrl, { method: op.method, ...(op.exampleBody === undefined ? {} : { json: op.exampleBody }) });
      expectProblem(res, 501);
      expect(res.body.detail, op.operationId).to.include(op.operationId);
    }
  });
});
