import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { DEMO_FINDING, startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.js';
import { callWithHost, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { bearer, startSignInServer, type SignInServer } from '../helpers/sign-in.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const KEY = 'sk-ant-proxy';
const finding = DEMO_FINDING;

/** A server without sign-in, one narrative per minute per caller, logging into `lines`. */
async function startLoggedServer(anthropic: FakeAnthropic, env: Record<string, string>): Promise<TestServer & { audit: () => Record<string, any>[] }> {
  const lines: Record<string, any>[] = [];
  const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  const server = await startTestServer({
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropic.url, NARRATIVE_PER_MINUTE: '1', ALLOWED_HOSTS: 'desk.example.org', ...env },
    log,
  });
  return Object.assign(server, { audit: () => lines.filter((l) => l.audit === true) });
}

/** A narrative sent as a proxy on loopback would forward it, with the `X-Forwarded-*` headers given. */
const narrate = (base: string, forwarded: Record<string, string>, host = 'localhost') =>
  callWithHost(base, '/api/explain-narrative', host, { method: 'POST', json: { tenant: 'kantonsspital', finding }, headers: forwarded });

describe('the client address behind a reverse proxy (TRUST_PROXY)', function () {
  this.timeout(60_000);
  let anthropic: FakeAnthropic;
  before(async () => {
    anthropic = await startFakeAnthropic(KEY);
  });
  after(async () => anthropic.close());

  describe('without TRUST_PROXY', () => {
    let server: Awaited<ReturnType<typeof startLoggedServer>>;
    before(async () => {
      server = await startLoggedServer(anthropic, {});
    });
    after(async () => server.close());

    it('counts and audits the peer, whatever X-Forwarded-For says (a client cannot pick its limit key)', async () => {
      expect((await narrate(server.url, { 'x-forwarded-for': '203.0.113.7' })).status).to.equal(200);
      const spoofed = await narrate(server.url, { 'x-forwarded-for': '198.51.100.99' });
      expectProblem(spoofed, 429);
      const addresses = server.audit().filter((l) => l.operationId === 'createNarrative').map((l) => [l.outcome, l.address]);
      expect(addresses).to.deep.equal([
        ['ok', '127.0.0.1'],
        ['rate-limited', '127.0.0.1'],
      ]);
    });

    it('checks the Host header, never X-Forwarded-Host', async () => {
      const misdirected = await callWithHost(server.url, '/health/live', 'evil.example', { headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-host': 'desk.example.org' } });
      expectProblem(misdirected, 421);
    });
  });

  describe('with TRUST_PROXY=loopback (a proxy on this machine) and sign-in', () => {
    let provider: OidcProvider;
    let server: SignInServer;
    let token: Record<string, string>;
    before(async () => {
      provider = await OidcProvider.start();
      server = await startSignInServer(provider, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropic.url, NARRATIVE_PER_MINUTE: '1', ALLOWED_HOSTS: 'desk.example.org', TRUST_PROXY: 'loopback' });
      token = bearer(await provider.token());
    });
    after(async () => {
      await server.close();
      await provider.close();
    });

    it('audits the client address the proxy forwarded, and counts limits per sub whatever it forwards', async () => {
      const seen = server.audit().length;
      expect((await narrate(server.url, { ...token, 'x-forwarded-for': '203.0.113.7' })).status).to.equal(200);
      // a client that writes its own X-Forwarded-For: the proxy appends the address it saw, which is what is audited
      expectProblem(await narrate(server.url, { ...token, 'x-forwarded-for': '198.51.100.99, 203.0.113.8' }), 429);
      const lines = server.audit().slice(seen).map((l) => [l.outcome, l.address, l.user.sub]);
      expect(lines).to.deep.equal([
        ['ok', '203.0.113.7', 'u-anna'],
        ['rate-limited', '203.0.113.8', 'u-anna'],
      ]);
    });

    it('checks the host the proxy forwarded as well as the Host header', async () => {
      const forwarded = { 'x-forwarded-for': '203.0.113.20', 'x-forwarded-host': 'desk.example.org' };
      expect((await callWithHost(server.url, '/health/live', 'localhost', { headers: forwarded })).status).to.equal(200);
      expectProblem(await callWithHost(server.url, '/health/live', 'upstream.internal', { headers: forwarded }), 421);
      const misdirected = await callWithHost(server.url, '/api/identity', 'localhost', { headers: { ...token, ...forwarded, 'x-forwarded-host': 'evil.example' } });
      expectProblem(misdirected, 421);
      const refused = server.audit().at(-1)!;
      expect(refused).to.include({ outcome: 'misdirected', address: '203.0.113.20' });
    });
  });
});
