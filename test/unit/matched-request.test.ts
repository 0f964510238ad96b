import { expect } from 'chai';
import type { Context, OpenAPIBackend, Request } from 'openapi-backend';
import { loadContractDocument } from '../../src/contract-document.js';
import { createContractBackend } from '../../src/http/adapter.js';
import { matchedRequestHandler } from '../../src/http/matched-request.js';
import { contractOperations, exampleRequest } from '../helpers/contract.js';

/** What a handler was called with, as far as anything downstream can tell. */
interface Call {
  handler: string;
  operationId: string | undefined;
  request: unknown;
  validation: unknown;
}

/**
 * Registers a recording handler for every operation and every hook the server registers. `library`: the library's
 * handleRequest also judges `security`, which the adapter has judged before handleMatched runs: its bearerAuth is
 * met, as for a request the adapter let through.
 */
function record(api: OpenAPIBackend, library: boolean): Call[] {
  const calls: Call[] = [];
  const recorder = (handler: string) => (c: Context) => {
    // copied now: handleRequest and handleMatched may both touch the objects later
    calls.push(
      structuredClone({
        handler,
        operationId: c.operation?.operationId,
        request: c.request,
        validation: c.validation === undefined ? undefined : { valid: c.validation.valid, errors: c.validation.errors, coerced: c.validation.coerced },
      }),
    );
    return handler;
  };
  for (const op of api.router.getOperations()) api.register(op.operationId as string, recorder('operation'));
  for (const hook of ['validationFail', 'notFound', 'methodNotAllowed']) api.register(hook, recorder(hook));
  if (library) api.registerSecurityHandler('bearerAuth', () => true);
  return calls;
}

/** Every operation's example, and variants that break it one way each. */
function requests(): Request[] {
  const all: Request[] = [];
  for (const op of contractOperations()) {
    const example = exampleRequest(op) as Request;
    all.push(example);
    const query = example.query as Record<string, string | string[]>;
    const firstQuery = Object.keys(query)[0];
    // a query parameter it does not declare, a declared one dropped, one with a value of another type
    all.push({ ...example, query: { ...query, undeclared: '1' } });
    if (firstQuery !== undefined) {
      const { [firstQuery]: _dropped, ...rest } = query;
      all.push({ ...example, query: rest });
      all.push({ ...example, query: { ...query, [firstQuery]: ['x', 'y'] } });
    }
    // path parameters that break their patterns, repeated values, cookies and upper-case headers
    all.push({ ...example, path: example.path.replace(/[^/]+$/, '..%2F..%2Fetc') });
    all.push({ ...example, headers: { ...example.headers, Cookie: 'a=1; b=2', 'X-Upper': 'Y' } });
    if (example.body !== undefined) {
      all.push({ ...example, body: '{"broken":' });
      all.push({ ...example, body: { ...(example.body as object), unexpected_member: true } });
      all.push({ ...example, body: {} });
      all.push({ ...example, body: [] });
    }
    // another method on the same path (405 or another operation)
    all.push({ ...example, method: example.method === 'GET' ? 'DELETE' : 'GET' });
  }
  all.push({ method: 'GET', path: '/no/such/route', headers: {}, query: {} });
  return all;
}

describe("handleMatched against openapi-backend's handleRequest", () => {
  it('calls the same handler with the same request and validation for every example and its variants', async () => {
    const document = loadContractDocument(process.cwd()).document;
    const library = await createContractBackend(document, false);
    const ours = await createContractBackend(document);
    const libraryCalls = record(library, true);
    const ourCalls = record(ours, false);
    const matched = matchedRequestHandler(ours);
    matched.check();
    let compared = 0;
    for (const req of requests()) {
      await library.handleRequest(structuredClone(req));
      const operation = ours.router.matchOperation(req);
      if (operation === undefined) await ours.handleRequest(structuredClone(req));
      else await matched.handle(structuredClone(req), operation);
      const label = `${req.method} ${req.path} ${JSON.stringify(req.query)} ${JSON.stringify(req.body)}`;
      expect(ourCalls.at(-1), label).to.deep.equal(libraryCalls.at(-1));
      compared += 1;
    }
    expect(libraryCalls).to.have.length(compared);
    expect(new Set(libraryCalls.map((c) => c.handler))).to.deep.equal(new Set(['operation', 'validationFail', 'notFound', 'methodNotAllowed']));
    expect(compared).to.be.greaterThan(300);
  });

  it('refuses a security handler: a request reaches it authorized, by the adapter alone', async () => {
    const api = await createContractBackend(loadContractDocument(process.cwd()).document);
    const matched = matchedRequestHandler(api);
    matched.check();
    api.registerSecurityHandler('bearerAuth', () => true);
    expect(() => matched.check()).to.throw(/does not run openapi-backend's security handler bearerAuth/);
  });

  it('refuses a hook of handleRequest that it would skip', async () => {
    const api = await createContractBackend(loadContractDocument(process.cwd()).document);
    const matched = matchedRequestHandler(api);
    matched.check();
    api.register('postResponseHandler', () => undefined);
    expect(() => matched.check()).to.throw(/does not run openapi-backend's postResponseHandler/);
  });
});
