import { expect } from 'chai';
import { contractOperations } from '../helpers/contract.js';
import { call, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { bearer, callExample, exampleWithTenant, startSignInServer, storedState, type SignInServer } from '../helpers/sign-in.js';

const operations = contractOperations();
const guarded = operations.filter((op) => op.role !== null);
const writes = new Set(guarded.filter((op) => op.role === 'editor' || op.role === 'admin').map((op) => op.operationId));

/** What the detail of the 401 names, per broken token of OidcProvider.badTokens. */
const FAILED_CHECK: Record<string, RegExp> = {
  expired: /expired \(exp\)/,
  'not yet valid': /not valid yet \(nbf\)/,
  'wrong audience': /another audience \(aud\)/,
  'wrong issuer': /another issuer \(iss\)/,
  'bad signature': /signature does not verify/,
  'alg none': /asymmetric algorithm \(alg\)/,
  'HS256 with the public key': /asymmetric algorithm \(alg\)/,
  'unknown kid': /no signing key .*\(kid\)/,
  'no sub': /no "sub" claim/,
  'empty sub': /"sub" claim is not a text of 1 to 255 characters/,
  'sub not a text': /"sub" claim is not a text of 1 to 255 characters/,
  'no exp': /no "exp" claim/,
  malformed: /malformed/,
};

describe('sign-in (AUTH_MODE=oidc)', () => {
  let provider: OidcProvider;
  let server: SignInServer;
  let admin: string;

  before(async () => {
    provider = await OidcProvider.start();
    // the language-model key is set (its API is a closed port) so that narratives get as far as the tenant
    server = await startSignInServer(provider, { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', CORS_ORIGINS: 'https://desk.example' });
    admin = await provider.token();
  });
  after(async () => {
    await server.close();
    await provider.close();
  });

  it('needs a token for every operation but health, metrics, the contract and the docs', () => {
    const open = operations.filter((op) => op.role === null).map((op) => op.operationId);
    expect(open.sort()).to.deep.equal(['getApiDocs', 'getApiDocsAsset', 'getHealth', 'getHealthLive', 'getHealthReady', 'getMetrics', 'getOpenApiJson', 'getOpenApiYaml']);
    expect(guarded).to.have.length(41);
  });

  it('answers 401 with a bare challenge when no token is sent, and nothing changes', async () => {
    for (const op of guarded) {
      const before = storedState(server.dataDir);
      const res = await callExample(server.url, op, {});
      const body = await res.json();
      expectProblem({ status: res.status, headers: res.headers, body }, 401);
      expect(res.headers.get('www-authenticate'), op.operationId).to.equal('Bearer realm="analytics-desk"');
      expect(res.headers.get('vary') ?? '', op.operationId).to.match(/authorization/i);
      expect(storedState(server.dataDir), op.operationId).to.deep.equal(before);
    }
  });

  it('answers 401 invalid_token naming the failed check for each broken token, never echoing it, and nothing changes', async () => {
    const tokens = await provider.badTokens();
    expect(Object.keys(tokens).sort()).to.deep.equal(Object.keys(FAILED_CHECK).sort());
    for (const op of guarded) {
      for (const [name, token] of Object.entries(tokens)) {
        const before = writes.has(op.operationId) ? storedState(server.dataDir) : null;
        const res = await callExample(server.url, op, bearer(token));
        const text = await res.text();
        const label = `${op.operationId} with ${name}`;
        expect(res.status, `${label}: ${text}`).to.equal(401);
        expect(res.headers.get('content-type')).to.equal('application/problem+json');
        expect(res.headers.get('www-authenticate'), label).to.equal('Bearer realm="analytics-desk", error="invalid_token"');
        expect(JSON.parse(text).detail, label).to.match(FAILED_CHECK[name]!);
        expect(text, label).not.to.include(token);
        if (before !== null) expect(storedState(server.dataDir), label).to.deep.equal(before);
      }
    }
  });

  it('answers 401 for an Authorization header that is not a well-formed bearer token', async () => {
    const malformed = await call(server.url, '/api/views?tenant=kantonsspital', { headers: { authorization: `Bearer ${admin} trailing` } });
    expectProblem(malformed, 401);
    expect(malformed.headers.get('www-authenticate')).to.include('error="invalid_token"');
    expect(malformed.text).not.to.include(admin);
    const basic = await call(server.url, '/api/views?tenant=kantonsspital', { headers: { authorization: 'Basic YW5uYTpzZWNyZXQ=' } });
    expectProblem(basic, 401);
    expect(basic.headers.get('www-authenticate')).to.equal('Bearer realm="analytics-desk"');
  });

  it('answers 403 when the token lacks the role, lets the role through, and a refused write changes nothing', async () => {
    const byRoles: [string[], string][] = [
      [[], await provider.token({ sub: 'u-none', roles: ['auditor'] })],
      [['viewer'], await provider.token({ sub: 'u-viewer', roles: ['viewer'] })],
      [['viewer', 'editor'], await provider.token({ sub: 'u-editor', roles: 'editor' })],
    ];
    for (const op of guarded) {
      for (const [roles, token] of byRoles) {
        const before = storedState(server.dataDir);
        const res = await callExample(server.url, op, bearer(token));
        const text = await res.text();
        const label = `${op.operationId} with roles [${roles.join(', ')}]`;
        if (roles.includes(op.role as string)) {
          expect(res.status, `${label}: ${text}`).not.to.be.oneOf([401, 403, 500]);
          continue;
        }
        expect(res.status, `${label}: ${text}`).to.equal(403);
        expect(res.headers.get('content-type')).to.equal('application/problem+json');
        expect(res.headers.get('www-authenticate'), label).to.equal('Bearer realm="analytics-desk", error="insufficient_scope"');
        expect(JSON.parse(text).detail, label).to.include(`needs the role ${op.role}`);
        expect(storedState(server.dataDir), label).to.deep.equal(before);
      }
    }
  });

  it('answers a tenant outside the claim exactly like a tenant that does not exist, and nothing changes', async () => {
    const westOnly = await provider.token({ sub: 'u-west', tenants: ['west.*'] });
    const withTenant = guarded.filter((op) => op.tenantIn !== null);
    expect(withTenant.length).to.be.greaterThan(30);
    for (const op of withTenant) {
      for (const [hidden, unknown] of [
        ['ost.kantonsspital', 'ost.nosuchtenant'],
        ['kantonsspital', 'nosuchtenant'],
      ] as const) {
        const before = storedState(server.dataDir);
        const outside = await callExample(server.url, op, bearer(westOnly), exampleWithTenant(op, hidden));
        const missing = await callExample(server.url, op, bearer(westOnly), exampleWithTenant(op, unknown));
        const [a, b] = [(await outside.json()) as Record<string, string>, (await missing.json()) as Record<string, string>];
        const label = `${op.operationId} with ${hidden}`;
        expect(outside.status, `${label}: ${JSON.stringify(a)}`).to.equal(404);
        expect(missing.status, label).to.equal(404);
        // the same problem, word for word, once the one name is swapped for the other
        const swapped = JSON.parse(JSON.stringify({ ...a, requestId: null }).replaceAll(hidden, unknown));
        expect(swapped, label).to.deep.equal({ ...b, requestId: null });
        expect(storedState(server.dataDir), label).to.deep.equal(before);
      }
    }
  });

  it('judges a slug among the caller\'s tenants only, and lists only those', async () => {
    // rehaklinik is a slug of both packs
    expectProblem(await call(server.url, '/api/db-status/rehaklinik', { headers: bearer(admin) }), 409);
    const west = await provider.token({ tenants: ['west.*', 'ost.kantonsspital', 'north', 'ost.*.x'], roles: ['viewer'] });
    const status = await call(server.url, '/api/db-status/rehaklinik', { headers: bearer(west) });
    expect(status.status).to.equal(200);
    const tenants = await call(server.url, '/api/jumpbar?mode=tenants', { headers: bearer(west) });
    expect(tenants.body.tenants.map((t: { id: string }) => t.id)).to.deep.equal(['ost.kantonsspital', 'west.hopital-cantonal', 'west.rehaklinik']);
    const identity = await call(server.url, '/api/identity', { headers: bearer(west) });
    expect(identity.body).to.deep.equal({ name: 'Anna Muster', email: 'anna.muster@kantonsspital.example', roles: ['viewer'], tenants: ['ost.kantonsspital', 'west.*'] });
    const nobody = await provider.token({ tenants: undefined, roles: ['viewer'] }, { omit: ['tenants'] });
    expect((await call(server.url, '/api/jumpbar?mode=tenants', { headers: bearer(nobody) })).body).to.deep.equal({ tenants: [] });
  });

  it('serves health, the contract and the docs without a token, for any cache', async () => {
    for (const url of ['/health', '/openapi.yaml', '/openapi.json', '/docs', '/docs/swagger-ui.css']) {
      const res = await call(server.url, url);
      expect(res.status, url).to.equal(200);
      expect(res.headers.get('vary') ?? '', url).not.to.match(/authorization/i);
    }
  });

  it('records the caller as the author, whatever the body says', async () => {
    const editor = await provider.token({ sub: 'u-bea', name: 'Bea Beispiel', email: 'bea@example.org', roles: ['editor'], tenants: ['ost.*'] });
    const headers = bearer(editor);
    const view = await call(server.url, '/api/views', { method: 'POST', headers, json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'Mine', params: {}, author: 'Chief Physician' } });
    expect(view.body.view.author).to.equal('Bea Beispiel');
    const added = await call(server.url, '/kantonsspital/api/notebook/cells', {
      method: 'POST',
      headers,
      json: { cell: { type: 'discussion', title: 'Billing', author: 'Chief Physician' }, author: 'Chief Physician' },
    });
    expect(added.status).to.equal(201);
    const cells = JSON.parse(added.body.notebook.cells) as { id: string; author: string | null }[];
    const cell = cells.at(-1)!;
    expect(cell.author).to.equal('Bea Beispiel');
    const reply = await call(server.url, `/kantonsspital/api/notebook/cells/${cell.id}/discussion`, {
      method: 'POST',
      headers,
      json: { author: 'Chief Physician', text: { en: 'Agreed.' } },
    });
    const replies = (JSON.parse(reply.body.notebook.cells) as { id: string; replies?: { author: string }[] }[]).find((c) => c.id === cell.id)!.replies!;
    expect(replies.at(-1)!.author).to.equal('Bea Beispiel');
    const forged = await call(server.url, `/kantonsspital/api/notebook/cells/${cell.id}`, {
      method: 'PUT',
      headers,
      json: { updates: { replies: [{ author: 'Chief Physician', text: { en: 'Approved.' }, date: '2026-11-01' }] } },
    });
    expectProblem(forged, 400);
    expect(forged.body.errors).to.deep.equal([{ in: 'body', name: 'updates.replies', message: 'with sign-in, replies are added through the reply operation only' }]);
    const note = await call(server.url, '/kantonsspital/api/notes', { method: 'POST', headers, json: { title: 'Mine' } });
    expect(note.body.note.author).to.equal('Bea Beispiel');
    const noteCell = await call(server.url, `/kantonsspital/api/notes/${note.body.note.note_id}`, {
      method: 'POST',
      headers,
      json: { cell: { type: 'narrative', text: { en: 'x', de: 'x', fr: 'x' }, author: 'Chief Physician' } },
    });
    const full = await call(server.url, `/kantonsspital/api/notes/${note.body.note.note_id}`, { headers });
    expect(full.body.note.cells.find((c: { id: string }) => c.id === noteCell.body.cell_id).author).to.equal('Bea Beispiel');
  });

  it('marks every response of an operation that needs a token private to the caller', async () => {
    const logo = await fetch(`${server.url}/api/logo/kantonsspital`, { headers: bearer(admin) });
    expect(logo.status).to.equal(200);
    expect(logo.headers.get('cache-control')).to.equal('private, max-age=86400');
    expect(logo.headers.get('vary')).to.match(/authorization/i);
    const views = await fetch(`${server.url}/api/views?tenant=kantonsspital`, { headers: bearer(admin) });
    expect(views.headers.get('cache-control')).to.equal('private, no-cache');
    const exported = await fetch(`${server.url}/kantonsspital/dimensions/cost_centres/export`, { headers: bearer(admin) });
    expect(exported.headers.get('cache-control')).to.equal('private, no-store');
    await exported.arrayBuffer();
    const health = await fetch(`${server.url}/health`);
    expect(health.headers.get('cache-control')).to.equal('no-store');
  });

  it('answers a CORS preflight from an allowed origin without a token, allowing the Authorization header', async () => {
    const res = await fetch(`${server.url}/api/views`, {
      method: 'OPTIONS',
      headers: { origin: 'https://desk.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).to.equal(204);
    expect(res.headers.get('access-control-allow-origin')).to.equal('https://desk.example');
    expect(res.headers.get('access-control-allow-headers')).to.match(/\bAuthorization\b/);
    const refused = await fetch(`${server.url}/api/views?tenant=kantonsspital`, { headers: { origin: 'https://desk.example' } });
    expect(refused.status).to.equal(401);
    expect(refused.headers.get('access-control-expose-headers')).to.include('WWW-Authenticate');
  });

  it('refreshes scope all only with * and scope pack only with the whole pack', async () => {
    const packAdmin = await provider.token({ tenants: ['ost.*', 'west.rehaklinik'], roles: ['admin'] });
    const all = await call(server.url, '/api/refresh', { method: 'POST', headers: bearer(packAdmin), json: { scope: 'all' } });
    expectProblem(all, 403);
    expect(all.headers.get('www-authenticate')).to.include('insufficient_scope');
    expect((await call(server.url, '/api/refresh', { method: 'POST', headers: bearer(packAdmin), json: { scope: 'pack', pack: 'ost' } })).status).to.equal(200);
    expectProblem(await call(server.url, '/api/refresh', { method: 'POST', headers: bearer(packAdmin), json: { scope: 'pack', pack: 'west' } }), 403);
    const eastOnly = await provider.token({ tenants: ['ost.kantonsspital'], roles: ['admin'] });
    expectProblem(await call(server.url, '/api/refresh?scope=pack&pack=west', { headers: bearer(eastOnly) }), 404);
    expect((await call(server.url, '/api/refresh', { method: 'POST', headers: bearer(admin), json: { scope: 'all' } })).status).to.equal(200);
  });

  it('writes one audit line per write and per refused request, with the user and never the token', async () => {
    const editor = await provider.token({ sub: 'u-carla', email: 'carla@example.org', roles: ['editor'], tenants: ['ost.*'] });
    const seen = server.audit().length;
    const created = await call(server.url, '/api/views', { method: 'POST', headers: bearer(editor), json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'Audited', params: {} } });
    await call(server.url, `/api/views?tenant=kantonsspital&view_id=${created.body.view.view_id}`, { method: 'DELETE', headers: bearer(editor) });
    await call(server.url, '/api/views?tenant=kantonsspital');
    await call(server.url, '/api/probe-builder/save', { method: 'POST', headers: bearer(editor), json: { probe_id: 'probe_x', yaml: 'probe_id: probe_x\n' } });
    await call(server.url, '/api/views?tenant=west.rehaklinik', { headers: bearer(editor) });
    await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(editor) });
    const lines = server.audit().slice(seen);
    expect(lines.map((l) => [l.operationId, l.outcome, l.status])).to.deep.equal([
      ['createView', 'ok', 200],
      ['deleteView', 'ok', 200],
      ['listViews', 'unauthenticated', 401],
      ['saveSignalDefinition', 'forbidden', 403],
      ['listViews', 'tenant-outside-scope', 404],
    ]);
    expect(lines[0]).to.deep.include({ user: { sub: 'u-carla', email: 'carla@example.org' }, tenant: 'ost.kantonsspital', ids: { view_id: created.body.view.view_id } });
    expect(lines[1]!.ids).to.deep.equal({ view_id: created.body.view.view_id });
    expect(lines[2]!.user).to.equal(null);
    expect(lines[4]).to.deep.include({ tenant: 'west.rehaklinik', user: { sub: 'u-carla', email: 'carla@example.org' } });
    expect(JSON.stringify(server.lines)).not.to.include(editor).and.not.to.include(admin);
  });
});
