import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { DEFAULT_NARRATIVE_MODEL } from '../../src/config.js';
import { DEMO_FINDING, startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.js';
import { call, callWithHost, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, startSignInServer, type SignInServer } from '../helpers/sign-in.js';
import { until } from '../helpers/until.js';

const KEY = 'sk-ant-audit';
const finding = DEMO_FINDING;

describe('audit trail (docs/audit.md)', () => {
  describe('with sign-in', () => {
    let provider: OidcProvider;
    let anthropic: FakeAnthropic;
    let server: SignInServer;

    before(async () => {
      provider = await OidcProvider.start();
      anthropic = await startFakeAnthropic(KEY);
      server = await startSignInServer(provider, {
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: anthropic.url,
        NARRATIVE_PER_MINUTE: '1',
        ALLOWED_HOSTS: 'desk.example.org',
      });
    });
    after(async () => {
      await server.close();
      await anthropic.close();
      await provider.close();
    });

    /** The audit lines the requests of `act` wrote. */
    async function auditOf(act: () => Promise<unknown>): Promise<Record<string, any>[]> {
      const seen = server.audit().length;
      await act();
      return server.audit().slice(seen);
    }

    it('names caller, operation, tenant and IDs of every kind of refusal', async () => {
      const viewer = await provider.token({ sub: 'u-vera', email: 'vera@example.org', roles: ['viewer'], tenants: ['ost.*'] });
      const noteId = randomUUID();
      const viewId = randomUUID();
      const lines = await auditOf(async () => {
        expectProblem(await call(server.url, `/kantonsspital/api/notes/${noteId}`), 401);
        expectProblem(await call(server.url, `/api/views?tenant=kantonsspital&view_id=${viewId}`, { method: 'DELETE', headers: bearer(viewer) }), 403);
        expectProblem(await call(server.url, '/api/refresh?scope=pack&pack=west', { method: 'POST', headers: bearer(viewer) }), 403);
        expectProblem(await call(server.url, `/west.rehaklinik/api/notes/${noteId}`, { headers: bearer(viewer) }), 404);
        expect((await call(server.url, '/api/explain-narrative', { method: 'POST', headers: bearer(viewer), json: { tenant: 'kantonsspital', finding } })).status).to.equal(200);
        expectProblem(await call(server.url, '/api/explain-narrative', { method: 'POST', headers: bearer(viewer), json: { tenant: 'kantonsspital', finding } }), 429);
        expectProblem(await callWithHost(server.url, `/api/views?tenant=kantonsspital&view_id=${viewId}`, 'evil.example', { method: 'DELETE', headers: bearer(viewer) }), 421);
      });
      const vera = { sub: 'u-vera', email: 'vera@example.org' };
      expect(lines.map((l) => [l.operationId, l.outcome, l.status, l.tenant, l.ids])).to.deep.equal([
        ['getNote', 'unauthenticated', 401, 'kantonsspital', { note_id: noteId }],
        ['deleteView', 'forbidden', 403, 'kantonsspital', { view_id: viewId }],
        ['refreshStore', 'forbidden', 403, null, { scope: 'pack', pack: 'west' }],
        ['getNote', 'tenant-outside-scope', 404, 'west.rehaklinik', { note_id: noteId }],
        ['createNarrative', 'ok', 200, 'ost.kantonsspital', { 'finding.probe_id': 'probe_unbilled_cases', 'finding.entity_id': 'C-100001' }],
        ['createNarrative', 'rate-limited', 429, 'kantonsspital', { 'finding.probe_id': 'probe_unbilled_cases', 'finding.entity_id': 'C-100001' }],
        ['deleteView', 'misdirected', 421, 'kantonsspital', { view_id: viewId }],
      ]);
      expect(lines[0]!.user).to.equal(null);
      for (const line of lines.slice(1, 6)) expect(line.user, line.operationId).to.deep.equal(vera);
      // a refused Host is answered before any token is looked at
      expect(lines[6]!.user).to.equal(null);
      for (const line of lines) expect(line.address, line.operationId).to.match(/^(::ffff:)?127\.0\.0\.1$/);
      expect(JSON.stringify(lines)).not.to.include(viewer);
    });

    it('names the tenant and IDs of the body of a write refused for its role', async () => {
      const viewer = await provider.token({ sub: 'u-vera', email: 'vera@example.org', roles: ['viewer'], tenants: ['ost.*'] });
      const viewId = randomUUID();
      const lines = await auditOf(async () => {
        expectProblem(await call(server.url, '/api/views', { method: 'POST', headers: bearer(viewer), json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'Refused', params: {} } }), 403);
        expectProblem(await call(server.url, '/api/views', { method: 'PUT', headers: bearer(viewer), json: { tenant: 'west.rehaklinik', view_id: viewId, name: 'Refused' } }), 403);
      });
      expect(lines.map((l) => [l.operationId, l.outcome, l.status, l.tenant, l.ids])).to.deep.equal([
        ['createView', 'forbidden', 403, 'kantonsspital', {}],
        ['updateView', 'forbidden', 403, 'west.rehaklinik', { view_id: viewId }],
      ]);
      for (const line of lines) expect(line.user).to.deep.equal({ sub: 'u-vera', email: 'vera@example.org' });
    });

    it('audits a narrative with the model and the Gold rows it sent, and an export with the rows it gave', async () => {
      const analyst = await provider.token({ sub: 'u-ada', roles: ['viewer'], tenants: ['*'] });
      const lines = await auditOf(async () => {
        expect((await call(server.url, '/api/explain-narrative', { method: 'POST', headers: bearer(analyst), json: { tenant: 'kantonsspital', finding } })).status).to.equal(200);
        const csv = await call(server.url, '/kantonsspital/dimensions/cost_centres/export?q=Kardio', { headers: bearer(analyst) });
        expect(csv.status).to.equal(200);
        const rows = csv.text.trimEnd().split('\n').length - 1;
        expect(rows).to.be.greaterThan(0);
        // the export's line is written once its stream has closed
        await until(() => server.audit().some((l) => l.operationId === 'exportDimension' && l.user.sub === 'u-ada'), { what: "the export's audit line" });
        expect(server.audit().filter((l) => l.operationId === 'exportDimension').at(-1)!.details).to.deep.equal({ entity: 'cost_centres', rows, truncated: false });
      });
      const narrative = lines.find((l) => l.operationId === 'createNarrative')!;
      expect(narrative).to.deep.include({ outcome: 'ok', tenant: 'ost.kantonsspital', user: { sub: 'u-ada', email: 'anna.muster@kantonsspital.example' } });
      expect(narrative.details).to.include({ probe_id: 'probe_unbilled_cases', entity_type: 'Case', entity_id: 'C-100001', model: DEFAULT_NARRATIVE_MODEL });
      expect(narrative.details.rows).to.be.greaterThan(0);
      const exported = lines.find((l) => l.operationId === 'exportDimension')!;
      expect(exported).to.deep.include({ outcome: 'ok', tenant: 'ost.kantonsspital' });
      // reads that give nothing away in bulk are not audited
      expect(lines.map((l) => l.operationId)).to.deep.equal(['createNarrative', 'exportDimension']);
    });
  });

  describe('request ids', () => {
    let server: TestServer;
    const lines: Record<string, any>[] = [];
    before(async () => {
      const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
      server = await startTestServer({ log, env: { NARRATIVE_PER_MINUTE: '1', ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' } });
    });
    after(async () => server.close());

    it("are always the server's own: a client's X-Request-Id is logged beside it as clientRequestId", async () => {
      const forged = 'req-0001';
      const first = await call(server.url, '/api/views?tenant=kantonsspital', { headers: { 'x-request-id': forged } });
      const second = await call(server.url, '/api/views?tenant=kantonsspital', { headers: { 'x-request-id': forged } });
      const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
      expect(ids[0]).to.match(/^[0-9a-f-]{36}$/);
      expect(ids[0]).not.to.equal(ids[1]);
      const requestLines = lines.filter((l) => l.msg === 'request' && l.path === '/api/views');
      expect(requestLines.map((l) => [l.reqId, l.clientRequestId])).to.deep.equal([
        [ids[0], forged],
        [ids[1], forged],
      ]);
      expect(lines.some((l) => l.reqId === forged)).to.equal(false);
    });

    it('name the refusals of a desk without sign-in in the audit too', async () => {
      const refused = await callWithHost(server.url, '/api/jumpbar?mode=summary&tenant=kantonsspital', 'evil.example', { headers: { 'x-request-id': 'page-7' } });
      expectProblem(refused, 421);
      const line = lines.filter((l) => l.audit === true).at(-1)!;
      expect(line).to.deep.include({ operationId: 'getJumpbar', outcome: 'misdirected', status: 421, tenant: 'kantonsspital', user: null, clientRequestId: 'page-7' });
      expect(line.reqId).to.equal(refused.body.requestId);
      expect(line.reqId).not.to.equal('page-7');
    });
  });
});
