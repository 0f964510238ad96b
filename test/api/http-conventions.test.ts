import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import YAML from 'yaml';
import { DRAIN_LIMIT_BYTES } from '../../src/http/body.js';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A raw connection to `url`: what the server sent so far, and a promise of the moment it closed. */
function rawConnection(url: string): { socket: net.Socket; received: () => string; closed: Promise<void> } {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  // a write into a connection the server destroyed fails: that is the end looked for, not an error of the test
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

/** Writes `bytes` of body in 64 KiB chunks (chunked encoding when `chunked`), waiting for each to drain; stops early when the connection closes. Answers the bytes written. */
async function writeBody(socket: net.Socket, bytes: number, chunked: boolean): Promise<number> {
  const piece = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  while (written < bytes && !socket.destroyed) {
    const frame = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
    written += piece.length;
    if (!socket.write(frame)) {
      await new Promise<void>((resolve) => {
        const go = (): void => {
          socket.off('drain', go).off('close', go);
          resolve();
        };
        socket.once('drain', go).once('close', go);
      });
    }
  }
  return written;
}

describe('HTTP conventions (docs/errors.md)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  it('answers 404 problem for an unknown route', async () => {
    const res = await call(server.url, '/api/nothing-here');
    expectProblem(res, 404);
    expect(res.body.title).to.equal('No such route');
  });

  it('answers 405 with Allow for a known path with another method', async () => {
    const res = await call(server.url, '/health', { method: 'DELETE' });
    expectProblem(res, 405);
    expect(res.headers.get('allow')).to.equal('GET');
    const refresh = await call(server.url, '/api/refresh', { method: 'PUT' });
    expectProblem(refresh, 405);
    expect(refresh.headers.get('allow')).to.equal('GET, POST');
  });

  it('answers 400 with errors[] for a missing required query parameter', async () => {
    const res = await call(server.url, '/api/views');
    expectProblem(res, 400);
    expect(res.body.errors).to.deep.include({ in: 'query', name: 'tenant', message: 'is required' });
  });

  it("answers a value outside an enum and an unknown tenant as the contract's problem examples show them", async () => {
    const doc = YAML.parse(fs.readFileSync('openapi.yaml', 'utf8'));
    const example = (response: string) => doc.components.responses[response].content['application/problem+json'].example;
    // the request id differs from answer to answer
    const withoutRequestId = ({ requestId, ...body }: Record<string, unknown>): Record<string, unknown> => {
      expect(requestId).to.be.a('string');
      return body;
    };
    const badRequest = example('BadRequest');
    const refused = await call(server.url, `${badRequest.instance}?mode=everything`);
    expectProblem(refused, 400);
    expect(withoutRequestId(refused.body)).to.deep.equal(badRequest);
    const notFound = example('NotFound');
    const unknown = await call(server.url, notFound.instance);
    expectProblem(unknown, 404);
    expect(withoutRequestId(unknown.body)).to.deep.equal(notFound);
  });

  it('answers 400 for an unknown query parameter and for malformed JSON', async () => {
    expectProblem(await call(server.url, '/api/store-status?debug=1'), 400);
    const res = await call(server.url, '/api/refresh', { method: 'POST', body: '{"scope":', headers: { 'content-type': 'application/json' } });
    expectProblem(res, 400);
    expect(res.body.errors[0].message).to.match(/malformed JSON/);
    // well-formed JSON that is not an object reaches the contract's validator, which names what is wrong
    const scalar = await call(server.url, '/api/views', { method: 'POST', body: '42', headers: { 'content-type': 'application/json' } });
    expectProblem(scalar, 400);
    expect(scalar.body.errors[0]).to.include({ in: 'body' });
    expect(scalar.body.errors[0].message).not.to.match(/malformed JSON/);
    // a __proto__ member is refused by the parser (prototype poisoning), before any code sees the object
    const poisoned = await call(server.url, '/api/refresh', { method: 'POST', body: '{"scope":"all","__proto__":{"polluted":true}}', headers: { 'content-type': 'application/json' } });
    expectProblem(poisoned, 400);
    expect(poisoned.body.errors[0].message).to.match(/prototype/);
  });

  it('answers 413 for a body over 1 MiB, declared or chunked', async () => {
    const big = JSON.stringify({ scope: 'all', padding: 'x'.repeat(1024 * 1024) });
    expectProblem(await call(server.url, '/api/refresh', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } }), 413);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i += 1) controller.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
        controller.close();
      },
    });
    const chunked = await call(server.url, '/api/refresh', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expectProblem(chunked, 413);
  });

  it('reads the rest of a body over 1 MiB after its 413 and keeps the connection: the next request on it is answered', async () => {
    const { socket, received, closed } = rawConnection(server.url);
    const host = new URL(server.url).host;
    const length = 2 * 1024 * 1024;
    socket.write(`POST /api/refresh HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
    expect(await writeBody(socket, length, false)).to.equal(length);
    socket.write(`GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    await closed;
    const answers = received().split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(answers.map((answer) => answer.slice(0, 12))).to.deep.equal(['HTTP/1.1 413', 'HTTP/1.1 200']);
    expect(answers[0]).to.match(/\r\nConnection: keep-alive\r\n/i);
  });

  it('closes the connection of a refused body once more than the drain limit follows, or when its declared length is over it', async () => {
    const host = new URL(server.url).host;
    const chunked = rawConnection(server.url);
    chunked.socket.write(`POST /api/refresh HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const written = await writeBody(chunked.socket, 4 * DRAIN_LIMIT_BYTES, true);
    await chunked.closed;
    expect(chunked.received()).to.match(/^HTTP\/1\.1 413 /);
    expect(written, 'bytes sent before the server closed').to.be.above(DRAIN_LIMIT_BYTES).and.below(4 * DRAIN_LIMIT_BYTES);
    const declared = rawConnection(server.url);
    declared.socket.write(`POST /api/refresh HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${DRAIN_LIMIT_BYTES + 1}\r\n\r\n`);
    await declared.closed;
    expect(declared.received()).to.match(/^HTTP\/1\.1 413 [\s\S]*\r\nConnection: close\r\n/i);
  });

  it('answers 415 for a media type the contract does not declare', async () => {
    const res = await call(server.url, '/api/refresh', { method: 'POST', body: 'scope=all', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectProblem(res, 415);
    expectProblem(await call(server.url, '/api/refresh', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json; charset=latin1' } }), 415);
  });

  it("carries X-Build-Label and the server's own X-Request-Id on errors too, whatever id the client sends", async () => {
    const res = await call(server.url, '/api/nothing', { headers: { 'x-request-id': 'ui-1234' } });
    expect(res.headers.get('x-build-label')).to.match(/^v\d+\.\d+\.\d+ /);
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    expect(res.body.requestId).to.equal(res.headers.get('x-request-id'));
  });

  it('sends /docs with nosniff and no framing by other sites, and the contract with no-cache', async () => {
    const docs = await call(server.url, '/docs');
    expect(docs.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(docs.headers.get('content-security-policy')).to.equal("frame-ancestors 'none'");
    expect(docs.headers.get('cache-control')).to.equal('no-cache');
    const asset = await fetch(`${server.url}/docs/swagger-ui.css`);
    expect(asset.headers.get('x-content-type-options')).to.equal('nosniff');
    for (const contract of ['/openapi.yaml', '/openapi.json']) expect((await fetch(server.url + contract)).headers.get('cache-control'), contract).to.equal('no-cache');
  });

  it('serves the contract as YAML and JSON with ETag revalidation, and the docs page', async () => {
    const yaml = await call(server.url, '/openapi.yaml');
    expect(yaml.status).to.equal(200);
    expect(yaml.headers.get('content-type')).to.match(/^application\/yaml/);
    expect(yaml.text).to.match(/^openapi: 3\.0\.3/m);
    const etag = yaml.headers.get('etag') as string;
    const again = await fetch(`${server.url}/openapi.yaml`, { headers: { 'if-none-match': etag } });
    expect(again.status).to.equal(304);
    const json = await call(server.url, '/openapi.json');
    expect(json.body.openapi).to.equal('3.0.3');
    const docs = await call(server.url, '/docs');
    expect(docs.headers.get('content-type')).to.match(/^text\/html/);
    expect(docs.text).to.include('/docs/swagger-ui-bundle.js');
    const bundle = await fetch(`${server.url}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).to.equal(200);
    expect(bundle.headers.get('content-type')).to.match(/^application\/javascript/);
    expect((await bundle.arrayBuffer()).byteLength).to.be.greaterThan(100_000);
    expectProblem(await call(server.url, '/docs/..%2Fpackage.json'), 400);
  });

  it('answers CORS preflight only for configured origins', async () => {
    const corsServer = await startTestServer({ env: { CORS_ORIGINS: 'http://ui.example:3000' } });
    try {
      const ok = await fetch(`${corsServer.url}/api/refresh`, {
        method: 'OPTIONS',
        headers: { origin: 'http://ui.example:3000', 'access-control-request-method': 'POST' },
      });
      expect(ok.status).to.equal(204);
      expect(ok.headers.get('access-control-allow-origin')).to.equal('http://ui.example:3000');
      const other = await fetch(`${corsServer.url}/health`, { headers: { origin: 'http://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).to.equal(null);
    } finally {
      await corsServer.close();
    }
  });
});
