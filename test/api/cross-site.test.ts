import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { call, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { bearer, startSignInServer, storedState } from '../helpers/sign-in.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const UI = 'https://desk-ui.example.org';
const view = { tenant: 'kantonsspital', entity: 'cost_centres', name: 'From another site', params: {} };

describe('cross-site requests to a desk without sign-in (Fetch Metadata)', function () {
  this.timeout(60_000);
  let server: TestServer;
  const lines: Record<string, any>[] = [];
  const audit = () => lines.filter((l) => l.audit === true);
  before(async () => {
    const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
    server = await startTestServer({ env: { CORS_ORIGINS: UI }, log });
  });
  after(async () => server.close());

  it('answers 403 to a write from another site, audited as forbidden, changing nothing', async () => {
    const before = storedState(server.dataDir);
    const seen = audit().length;
    // a form a page on another site submits: a simple request, no preflight
    const form = await call(server.url, '/api/refresh?scope=all', { method: 'POST', body: 'scope=all', headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' } });
    expectProblem(form, 403);
    expect(form.body.detail).to.include('Origin http://evil.example');
    expectProblem(await call(server.url, '/api/views', { method: 'POST', json: view, headers: { origin: 'http://evil.example' } }), 403);
    expectProblem(await call(server.url, '/api/views', { method: 'POST', json: view, headers: { 'sec-fetch-site': 'cross-site' } }), 403);
    expectProblem(await call(server.url, '/kantonsspital/api/notes', { method: 'POST', json: { title: 'planted' }, headers: { origin: 'null' } }), 403);
    expectProblem(await call(server.url, '/api/views', { method: 'POST', json: view, headers: { origin: `http://localhost:${server.port + 1}` } }), 403);
    expect(storedState(server.dataDir)).to.deep.equal(before);
    const refused = audit().slice(seen).map((l) => [l.operationId, l.outcome, l.status]);
    expect(refused).to.deep.equal([
      ['refreshStore', 'forbidden', 403],
      ['createView', 'forbidden', 403],
      ['createView', 'forbidden', 403],
      ['createNote', 'forbidden', 403],
      ['createView', 'forbidden', 403],
    ]);
  });

  it('answers 403 to GET /api/refresh from another site, which changes state', async () => {
    expectProblem(await call(server.url, '/api/refresh', { headers: { 'sec-fetch-site': 'cross-site' } }), 403);
    expectProblem(await call(server.url, '/api/refresh?scope=all', { headers: { origin: 'http://evil.example' } }), 403);
  });

  it('serves writes from its own pages, from CORS_ORIGINS and from tools that send neither header', async () => {
    const senders: Record<string, string>[] = [
      {},
      { origin: `http://127.0.0.1:${server.port}`, 'sec-fetch-site': 'same-origin' },
      { origin: UI, 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'none' },
    ];
    for (const headers of senders) {
      const res = await call(server.url, '/api/views', { method: 'POST', json: view, headers });
      expect(res.status, JSON.stringify(headers)).to.equal(200);
    }
    expect((await call(server.url, '/api/refresh', { headers: { origin: `http://127.0.0.1:${server.port}` } })).status).to.equal(200);
  });

  it('leaves reads from another site to CORS', async () => {
    const res = await call(server.url, '/api/jumpbar?mode=tenants', { headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('with sign-in, leaves a cross-site request to the token check', async () => {
    const provider = await OidcProvider.start();
    const signedIn = await startSignInServer(provider);
    try {
      const token = bearer(await provider.token());
      const res = await call(signedIn.url, '/api/views', { method: 'POST', json: view, headers: { ...token, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } });
      expect(res.status).to.equal(200);
      expectProblem(await call(signedIn.url, '/api/views', { method: 'POST', json: view, headers: { origin: 'http://evil.example' } }), 401);
    } finally {
      await signedIn.close();
      await provider.close();
    }
  });
});
