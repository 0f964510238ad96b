import { contractOperations } from '../helpers/contract.js';
import { expectDeclaredProblem } from '../helpers/http.js';

/**
 * The problems the cross-cutting parts of the server can send for an operation, by what the operation is: every
 * operation validates its request (400) and checks the Host (421); one with a body reads it (413, 415); one that
 * needs a token checks it (401, 403); one that takes a tenant resolves it (404, 409); a limited one counts (429).
 * A thrown problem whose status the operation does not declare becomes a 500, so each must be declared.
 */
describe('problems the server can send, as the contract declares them', () => {
  for (const op of contractOperations()) {
    it(`${op.operationId} declares every cross-cutting problem it can get`, () => {
      const expected = [400, 421];
      if (op.exampleBody !== undefined) expected.push(413, 415);
      if (op.role !== null) expected.push(401, 403);
      if (op.tenantIn !== null) expected.push(404, 409);
      if (op.cost !== null) expected.push(429);
      for (const status of expected) expectDeclaredProblem({ method: op.method, path: op.exampleUrl.split('?')[0]! }, status);
    });
  }
});
