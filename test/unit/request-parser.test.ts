import { expect } from 'chai';
import { createRequire } from 'node:module';
import { OpenAPIBackend, type Request } from 'openapi-backend';
import { loadContractDocument } from '../../src/contract-document.js';
import { compiledParseRequest } from '../../src/http/request-validation.js';
import { contractOperations, exampleRequest } from '../helpers/contract.js';

describe('request parser', () => {
  it('answers what openapi-backend parseRequest answers, with and without the matched operation, for every operation and odd requests', async () => {
    const api = new OpenAPIBackend({ definition: structuredClone(loadContractDocument(process.cwd()).document), quick: true });
    await api.init();
    const router = api.router;
    const compiled = compiledParseRequest(router);
    const requests: Request[] = [];
    for (const op of contractOperations()) {
      const example = exampleRequest(op);
      const { path, query } = example;
      requests.push(example as Request);
      // upper-case header names, cookies (one and several), repeated query values, a body as text, odd values
      requests.push({ method: op.method.toLowerCase(), path: ` ${path}/ `, query: { ...query, extra: ['a', 'b'], empty: '' }, headers: { 'X-Request-Id': 'r1', Cookie: 'a=1; b=two' }, body: JSON.stringify(op.exampleBody ?? null) });
      requests.push({ method: op.method, path, query: { tenant: ['kantonsspital', 'ost.kantonsspital'], q: '%2C,|' }, headers: { cookie: ['c=3', 'd=4'] }, body: 'not json' });
    }
    let compared = 0;
    for (const req of requests) {
      const operation = router.matchOperation(req);
      for (const withOperation of [undefined, operation]) {
        const expected = router.parseRequest(structuredClone(req), withOperation);
        const actual = compiled(structuredClone(req), withOperation);
        expect(actual, `${req.method} ${req.path} ${withOperation?.operationId ?? '(no operation)'}`).to.deep.equal(expected);
        compared += 1;
      }
    }
    expect(compared).to.be.greaterThan(250);
  });

  it('does not change the request it parses', async () => {
    const api = new OpenAPIBackend({ definition: structuredClone(loadContractDocument(process.cwd()).document), quick: true });
    await api.init();
    const req: Request = { method: 'GET', path: '/api/jumpbar', query: { tenant: 'kantonsspital', q: ['a', 'b'] }, headers: { Accept: 'x' } };
    const before = structuredClone(req);
    const parsed = compiledParseRequest(api.router)(req, api.router.matchOperation(req));
    (parsed.query.q as string[]).push('mutated');
    expect(req).to.deep.equal(before);
  });

  it("parses path parameters and cookies with the very copies of bath-es5 and cookie that openapi-backend loads", () => {
    const ours = createRequire(import.meta.url);
    const library = createRequire(ours.resolve('openapi-backend'));
    for (const name of ['bath-es5', 'cookie']) expect(ours.resolve(name), name).to.equal(library.resolve(name));
  });
});
