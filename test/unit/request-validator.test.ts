import { expect } from 'chai';
import { OpenAPIBackend, type Request } from 'openapi-backend';
import { loadContractDocument } from '../../src/contract-document.js';
import { createContractBackend } from '../../src/http/contract-index.js';
import { compiledValidateRequest } from '../../src/http/request-validation.js';
import { contractOperations, exampleRequest } from '../helpers/contract.js';

/** The server's openapi-backend instance (coercion, formats, its compiled router and parser). */
const backend = (): Promise<OpenAPIBackend> => createContractBackend(loadContractDocument(process.cwd()).document);

describe('request validator', () => {
  it('answers what openapi-backend validateRequest answers (errors, coerced request) for every operation and odd requests', async () => {
    const api = await backend();
    const compiled = compiledValidateRequest(api);
    const requests: Request[] = [];
    for (const op of contractOperations()) {
      const example = exampleRequest(op);
      const { path, query } = example;
      requests.push(example as Request);
      // unknown and repeated query values, numbers as text, a body as text or malformed, no content type, cookies
      requests.push({ method: op.method, path, query: { ...query, extra: ['a', 'b'], limit: '7', offset: 'x' }, headers: { Cookie: 'a=1' }, body: JSON.stringify(op.exampleBody ?? null) });
      requests.push({ method: op.method, path, query: { tenant: ['kantonsspital', 'ost.kantonsspital'], q: '', filter: '{not json', sort: '' }, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"broken' });
      requests.push({ method: op.method, path, query: { mode: 'tenants', columns: 'a,b', f: '1' }, headers: {}, body: undefined });
    }
    let compared = 0;
    let failing = 0;
    let coerced = 0;
    for (const req of requests) {
      const operation = api.router.matchOperation(req)!;
      expect(operation, `${req.method} ${req.path}`).to.not.equal(undefined);
      const expected = api.validator.validateRequest(structuredClone(req), operation);
      const checked = compiled(structuredClone(req), operation);
      expect(checked.result, `${req.method} ${req.path} ${JSON.stringify(req.query)}`).to.deep.equal(expected);
      if (expected.valid) {
        // the input a handler gets: what openapi-backend hands its handlers, the coerced request parsed again
        const handed = api.router.parseRequest(expected.coerced!, operation);
        expect({ path: checked.path, query: checked.query, body: checked.body }, `input of ${req.method} ${req.path}`).to.deep.equal({ path: handed.params, query: handed.query, body: handed.requestBody });
      }
      compared += 1;
      if (!expected.valid) failing += 1;
      if (JSON.stringify(expected.coerced?.query) !== JSON.stringify(req.query)) coerced += 1;
    }
    expect(compared).to.be.greaterThan(150);
    // both outcomes and coercion were compared, not only one kind
    expect(failing).to.be.greaterThan(20);
    expect(compared - failing).to.be.greaterThan(20);
    expect(coerced).to.be.greaterThan(2);
  });

  it('answers the same for what the contract does not use yet: array and JSON query parameters, coerced path parameters, bodies', async () => {
    const document = {
      openapi: '3.0.3',
      info: { title: 'shapes', version: '1' },
      paths: {
        '/items/{id}': {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          post: {
            operationId: 'postItem',
            parameters: [
              { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
              { name: 'tags', in: 'query', schema: { type: 'string' } },
              { name: 'n', in: 'query', schema: { type: 'integer', minimum: 1 } },
              { name: 'where', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
            ],
            requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['a'], properties: { a: { type: 'number' } } } } } },
            responses: { '200': { description: 'ok' } },
          },
          put: {
            operationId: 'putItem',
            requestBody: { content: { 'application/json': { schema: { type: 'object' } }, 'text/plain': { schema: { type: 'string' } } } },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    const api = new OpenAPIBackend({ definition: document as never, quick: true, validate: true, coerceTypes: true, ajvOpts: { strict: false } });
    await api.init();
    const compiled = compiledValidateRequest(api);
    const cases: Request[] = [];
    for (const method of ['post', 'put']) {
      for (const id of ['12', 'x']) {
        for (const query of <Record<string, string | string[]>[]>[{}, { tags: 'one' }, { tags: ['a', 'b'], n: '3' }, { n: '0' }, { where: '{"a":1}' }, { where: '{bad' }, { where: '"text"' }]) {
          for (const body of [undefined, { a: 1 }, { b: 2 }, '{"a":2}', '{bad', 7]) {
            for (const headers of <Record<string, string | string[]>[]>[{}, { 'content-type': 'application/json' }, { 'Content-Type': ['text/plain', 'x'] }]) {
              cases.push({ method, path: `/items/${id}`, query, headers, body: body as Request['body'] });
            }
          }
        }
      }
    }
    let differentCoercion = 0;
    let failing = 0;
    for (const req of cases) {
      const operation = api.router.matchOperation(req)!;
      const expected = api.validator.validateRequest(structuredClone(req), operation);
      const actual = compiled(structuredClone(req), operation).result;
      expect(actual, `${req.method} ${req.path} ${JSON.stringify(req.query)} ${JSON.stringify(req.body)} ${JSON.stringify(req.headers)}`).to.deep.equal(expected);
      if (JSON.stringify(expected.coerced) !== JSON.stringify(req)) differentCoercion += 1;
      if (!expected.valid) failing += 1;
    }
    expect(cases.length).to.equal(504);
    expect(differentCoercion).to.be.greaterThan(50);
    expect(failing).to.be.greaterThan(50);
    expect(cases.length - failing).to.be.greaterThan(20);
  });
});
