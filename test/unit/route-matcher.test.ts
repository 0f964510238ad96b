import { expect } from 'chai';
import { OpenAPIBackend, type Operation, type Request } from 'openapi-backend';
import { loadContractDocument } from '../../src/contract-document.js';
import { compiledMatchOperation } from '../../src/http/contract-index.js';
import { contractOperations } from '../helpers/contract.js';

describe('route matcher', () => {
  for (const apiRoot of ['/', '/desk/v1']) {
    it(`answers what openapi-backend matchOperation answers, errors included, for every route of the contract and odd paths (apiRoot ${apiRoot})`, async () => {
      const api = new OpenAPIBackend({ definition: structuredClone(loadContractDocument(process.cwd()).document), quick: true, apiRoot });
      await api.init();
      const router = api.router;
      const compiled = compiledMatchOperation(router, router.getOperations());
      const original = (req: Request, strict: boolean): Operation | undefined => router.matchOperation(req, strict);
      const paths = new Set<string>(['/', '', '/nowhere', '/api', '/api/', '//api/jumpbar', '/api/jumpbar/', '/api/logo/a/b', '/api/logo/', '/api/logo/%2F', '/docs/x', '/api/jumpbar?q=x']);
      for (const operation of contractOperations()) {
        const path = (apiRoot === '/' ? '' : apiRoot) + operation.exampleUrl.split('?')[0]!;
        paths.add(path);
        paths.add(`${path}/`);
        paths.add(`${path}/extra`);
        paths.add(path.replace(/[^/]+$/, 'a.b'));
      }
      const outcome = (match: (req: Request, strict: boolean) => Operation | undefined, req: Request, strict: boolean): string => {
        try {
          return match(req, strict)?.operationId ?? 'undefined';
        } catch (err) {
          return `error: ${(err as Error).message}`;
        }
      };
      let routed = 0;
      let compared = 0;
      for (const path of paths) {
        for (const method of ['get', 'POST', 'put', 'delete', 'patch']) {
          for (const strict of [false, true]) {
            const req = { method, path, headers: {} };
            const expected = outcome(original, req, strict);
            expect(outcome(compiled, req, strict), `${method} ${path} strict=${strict}`).to.equal(expected);
            if (!expected.startsWith('error') && expected !== 'undefined') routed += 1;
            compared += 1;
          }
        }
      }
      // the comparison covers real routes, not only misses
      expect(routed).to.be.greaterThan(80);
      expect(compared).to.be.greaterThan(500);
    });
  }

  it("refuses to be built over a router without the library's isUnderApiRoot (a private member it relies on)", async () => {
    const api = new OpenAPIBackend({ definition: structuredClone(loadContractDocument(process.cwd()).document), quick: true });
    await api.init();
    expect(typeof (api.router as unknown as { isUnderApiRoot?: unknown }).isUnderApiRoot).to.equal('function');
    const stripped = Object.create(api.router, { isUnderApiRoot: { value: undefined } });
    expect(() => compiledMatchOperation(stripped, api.router.getOperations())).to.throw(/has no isUnderApiRoot/);
  });
});
