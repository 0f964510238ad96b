import { expect } from 'chai';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import http from 'node:http';
import { contractOperations, type ContractOperation } from '../helpers/contract.js';
import { expectProblem } from '../helpers/http.js';
import { bearer, signInWorld, storedState } from '../helpers/sign-in.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Segments a URI may not hold as they are: malformed or overlong escapes, and characters RFC 3986 leaves out. */
const UNREADABLE = ['%', '%zz', 'a%2', '%c0%ae', '%ff', '[x]', ']', '{', '}', 'a|b', '^', '\\', '`', '"'];

const uriReference = fullFormats['uri-reference'] as RegExp;

/** Every operation with a path parameter, from openapi.yaml. */
const templated = contractOperations().filter((op) => op.path.includes('{'));

/** Each path parameter of `op` in turn replaced by `segment` in its example URL, named. */
function withSegment(op: ContractOperation, segment: string): { parameter: string; url: string }[] {
  const [examplePath, query] = op.exampleUrl.split('?');
  const template = op.path.split('/');
  return template.flatMap((part, i) => {
    if (!part.startsWith('{')) return [];
    const actual = examplePath!.split('/');
    actual[i] = segment;
    return [{ parameter: part.slice(1, -1), url: actual.join('/') + (query === undefined ? '' : `?${query}`) }];
  });
}

/** The request exactly as written (fetch and URL would re-encode or rewrite the path), with the operation's example body. */
function send(base: string, op: ContractOperation, url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any; request: { method: string; path: string } }> {
  const { hostname, port } = new URL(base);
  const payload = op.exampleBody === undefined ? undefined : JSON.stringify(op.exampleBody);
  const all: Record<string, string> = { ...headers };
  if (payload !== undefined) Object.assign(all, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: url, method: op.method, headers: all }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const answered = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') answered.set(name, value);
        const body = /json/.test(res.headers['content-type'] ?? '') && text !== '' ? JSON.parse(text) : text;
        resolve({ status: res.statusCode ?? 0, headers: answered, body, request: { method: op.method, path: url.split('?')[0]! } });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function expectUnreadablePath(res: Awaited<ReturnType<typeof send>>, parameter: string, label: string): void {
  expectProblem(res, 400);
  expect(res.body.errors, label).to.deep.include.members([{ in: 'path', name: parameter, message: res.body.errors[0].message }]);
  expect(res.body.errors[0].name, label).to.equal(parameter);
  expect(uriReference.test(res.body.instance), `${label}: instance ${res.body.instance}`).to.equal(true);
}

describe('path segments that cannot be read', function () {
  this.timeout(120_000);

  it('finds operations with path parameters in the contract', () => {
    expect(templated.length).to.be.greaterThan(15);
  });

  describe('a desk without sign-in', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(async () => server.close());

    it('answers 400 problem naming the parameter, with a valid instance, on every operation with a path parameter; nothing is written', async () => {
      const before = storedState(server.dataDir);
      for (const op of templated) {
        for (const segment of UNREADABLE) {
          for (const { parameter, url } of withSegment(op, segment)) {
            expectUnreadablePath(await send(server.url, op, url), parameter, `${op.operationId} ${url}`);
          }
        }
      }
      expect(storedState(server.dataDir)).to.deep.equal(before);
    });

    it('answers 421 first for a Host it does not know, with a valid instance', async () => {
      for (const op of templated) {
        for (const segment of ['[x]', '%zz', '%c0%ae']) {
          const [{ url }] = withSegment(op, segment);
          const res = await send(server.url, op, url!, { host: 'evil.example' });
          expectProblem(res, 421);
          expect(uriReference.test(res.body.instance), `${op.operationId} ${url}: instance ${res.body.instance}`).to.equal(true);
        }
      }
    });

    it('gives a route that matches nothing a 404 with a valid instance', async () => {
      const res = await send(server.url, { method: 'GET', exampleBody: undefined } as ContractOperation, '/api/nothing/[x]%zz');
      expectProblem(res, 404);
      expect(uriReference.test(res.body.instance), res.body.instance).to.equal(true);
    });
  });

  describe('a desk with sign-in', () => {
    const world = signInWorld();

    it('answers 401 before it reads the path, on every operation with a path parameter that needs a token', async () => {
      for (const op of templated.filter((o) => o.role !== null)) {
        for (const segment of ['[x]', '%', '%c0%ae']) {
          const [{ url }] = withSegment(op, segment);
          const res = await send(world.server.url, op, url!);
          expectProblem(res, 401);
          expect(uriReference.test(res.body.instance), `${op.operationId} ${url}`).to.equal(true);
        }
      }
    });

    it('answers a viewer 403 on writes and audits it as forbidden; an admin gets the 400, audited as failed; nothing is written', async () => {
      const before = storedState(world.server.dataDir);
      const viewer = bearer(await world.provider.token({ sub: 'u-viewer', roles: ['viewer'] }));
      const admin = bearer(await world.provider.token());
      const writes = templated.filter((o) => o.role === 'editor' || o.role === 'admin');
      expect(writes.length).to.be.greaterThan(5);
      for (const op of writes) {
        const [{ url }] = withSegment(op, '[00000000-0000-4000-8000-000000000000]');
        const seen = world.server.audit().length;
        expectProblem(await send(world.server.url, op, url!, viewer), 403);
        const [refused] = world.server.audit().slice(seen);
        expect(refused, op.operationId).to.include({ operationId: op.operationId, outcome: 'forbidden', status: 403 });
        expectUnreadablePath(await send(world.server.url, op, url!, admin), withSegment(op, 'x')[0]!.parameter, `${op.operationId} ${url}`);
        const [failed] = world.server.audit().slice(seen + 1);
        expect(failed, op.operationId).to.include({ operationId: op.operationId, outcome: 'failed', status: 400 });
      }
      expect(storedState(world.server.dataDir)).to.deep.equal(before);
    });
  });
});
