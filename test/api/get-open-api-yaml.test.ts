import { expect } from 'chai';
import fs from 'node:fs';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /openapi.yaml', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  const written = fs.readFileSync('openapi.yaml', 'utf8');

  it('sends the contract as written, as application/yaml to a client that accepts it, varying by Accept', async () => {
    for (const accept of [undefined, '*/*', 'application/yaml', 'application/*', 'application/yaml, text/plain', 'application/json;q=0.9, */*;q=0.1']) {
      const res = await call(server.url, '/openapi.yaml', { headers: accept === undefined ? {} : { accept } });
      expect(res.status, String(accept)).to.equal(200);
      expect(res.headers.get('content-type'), String(accept)).to.equal('application/yaml');
      expect(res.text, String(accept)).to.equal(written);
      expect(res.headers.get('vary'), String(accept)).to.match(/\bAccept\b/);
      expect(res.headers.get('cache-control')).to.equal('no-cache');
    }
  });

  it('sends the same text as text/plain when Accept prefers it or names neither type (the python client asks for problem JSON, the Go client of oapi-codegen for text)', async () => {
    for (const accept of ['text/plain', 'text/*', 'text/plain, application/yaml', 'application/yaml;q=0.5, text/plain', 'application/problem+json', 'application/json', 'application/yaml;q=0', 'text/yaml']) {
      const res = await call(server.url, '/openapi.yaml', { headers: { accept } });
      expect(res.status, accept).to.equal(200);
      expect(res.headers.get('content-type'), accept).to.equal('text/plain; charset=utf-8');
      expect(res.text, accept).to.equal(written);
    }
  });

  it('names UTF-8 as the text/plain answer\'s charset: a client that honours the header (text/plain without one is US-ASCII, Python requests reads ISO-8859-1) reads the non-ASCII text as written', async () => {
    expect(written, 'the contract has non-ASCII text, so the charset matters').to.match(/[^\x00-\x7f]/);
    const res = await fetch(`${server.url}/openapi.yaml`, { headers: { accept: 'text/plain' } });
    const charset = /;\s*charset=([^;\s]+)/i.exec(res.headers.get('content-type') ?? '')?.[1] ?? 'us-ascii';
    expect(charset.toLowerCase()).to.equal('utf-8');
    expect(new TextDecoder(charset).decode(await res.arrayBuffer())).to.equal(written);
  });

  it('tags each media type apart and answers 304 to the tag of the one asked for', async () => {
    const yaml = await call(server.url, '/openapi.yaml');
    const text = await call(server.url, '/openapi.yaml', { headers: { accept: 'text/plain' } });
    const [yamlTag, textTag] = [yaml.headers.get('etag') as string, text.headers.get('etag') as string];
    expect(yamlTag).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(textTag).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(textTag).not.to.equal(yamlTag);
    expect((await call(server.url, '/openapi.yaml', { headers: { 'if-none-match': yamlTag } })).status).to.equal(304);
    expect((await call(server.url, '/openapi.yaml', { headers: { accept: 'text/plain', 'if-none-match': textTag } })).status).to.equal(304);
    expect((await call(server.url, '/openapi.yaml', { headers: { accept: 'text/plain', 'if-none-match': yamlTag } })).status).to.equal(200);
  });

  it('answers 400 for a query parameter it does not declare', async () => {
    expectProblem(await call(server.url, '/openapi.yaml?format=json'), 400);
  });
});
