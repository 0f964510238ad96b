import { expect } from 'chai';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { generateDemo } from '../../src/demo/generate.js';
import { call, callWithHost, expectProblem, heldExport } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { bearer, startSignInServer, type SignInServer } from '../helpers/sign-in.js';

/** Sends `head` (request line and headers, no body) on a raw connection; the status and the parsed JSON body. */
function rawRequest(base: string, head: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [headers = '', body = ''] = received.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0);
      resolve({ status, body: /content-type: application\/(problem\+)?json/i.test(headers) && body !== '' ? JSON.parse(body) : body });
    });
    socket.end(`${head}\r\nConnection: close\r\n\r\n`);
  });
}

describe('the host a request names, judged once from what the client cannot choose', function () {
  this.timeout(60_000);

  describe('a desk without sign-in', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ env: { ALLOWED_HOSTS: 'desk.example.org' } });
    });
    after(async () => server.close());

    it("judges an absolute-form target by its authority, not by the Host header (RFC 9112 section 3.2.2)", async () => {
      const foreign = await rawRequest(server.url, 'GET http://evil.example/api/jumpbar?mode=tenants HTTP/1.1\r\nHost: localhost');
      expect(foreign.status).to.equal(421);
      expect(foreign.body.type).to.equal('https://analytics-desk.example/problems/misdirected-request');
      expect(JSON.stringify(foreign.body)).not.to.include('kantonsspital');
      expect((await rawRequest(server.url, 'GET http://localhost@evil.example/health/live HTTP/1.1\r\nHost: localhost')).status).to.equal(421);
      const own = await rawRequest(server.url, `GET http://desk.example.org:${server.port}/api/jumpbar?mode=tenants HTTP/1.1\r\nHost: evil.example`);
      expect(own.status).to.equal(200);
      expect(own.body.tenants.length).to.be.greaterThan(0);
    });

    it('answers 400 to a request with two Host headers, whichever comes first', async () => {
      for (const hosts of [['localhost', 'evil.example'], ['evil.example', 'localhost'], ['localhost', 'localhost']]) {
        const res = await rawRequest(server.url, `GET /api/jumpbar?mode=tenants HTTP/1.1\r\nHost: ${hosts[0]}\r\nHost: ${hosts[1]}`);
        expect(res.status, hosts.join(' + ')).to.equal(400);
        expect(res.body.errors).to.deep.equal([{ in: 'header', name: 'Host', message: 'appears more than once' }]);
      }
    });

    it('ignores X-Forwarded-Host and X-Forwarded-For without TRUST_PROXY', async () => {
      expectProblem(await callWithHost(server.url, '/health/live', 'evil.example', { headers: { 'x-forwarded-host': 'desk.example.org' } }), 421);
      expect((await callWithHost(server.url, '/health/live', 'desk.example.org', { headers: { 'x-forwarded-host': 'evil.example' } })).status).to.equal(200);
    });
  });

  it('counts an export under the peer address whatever X-Forwarded-For says, and audits that address', async () => {
    const data = tempDir('ads-host-exports-');
    // 100,000 rows of materials: an export that is not read stays running
    generateDemo({ out: data.dir, tenants: 3, rows: 100_000 });
    const lines: Record<string, any>[] = [];
    const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
    const server = await startTestServer({ dataDir: data.dir, env: { EXPORTS_PER_CALLER: '1' }, log });
    const held = await heldExport(`${server.url}/kantonsspital/dimensions/materials/export`);
    try {
      expect(held.status).to.equal(200);
      for (const forwarded of ['10.9.9.9', '::ffff:10.0.0.1', '1.2.3.4,,', '203.0.113.7, 198.51.100.1']) {
        const res = await call(server.url, '/kantonsspital/dimensions/cost_centres/export', { headers: { 'x-forwarded-for': forwarded } });
        expectProblem(res, 429);
      }
      const refused = lines.filter((l) => l.audit === true && l.outcome === 'rate-limited');
      expect(refused.map((l) => l.address)).to.deep.equal(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1']);
    } finally {
      held.close();
      await server.close();
      data.remove();
    }
  });

  describe('TRUST_PROXY without sign-in', () => {
    const withoutSignIn = (trust: string) => () => loadConfig({ TRUST_PROXY: trust });
    const withSignIn = (trust: string) =>
      loadConfig({ TRUST_PROXY: trust, AUTH_MODE: 'oidc', OIDC_ISSUER: 'http://127.0.0.1:1/realms/desk', OIDC_AUDIENCE: 'desk' }).trustProxy;

    it('is refused for loopback addresses and hop counts, which any program on the machine could pose as', () => {
      for (const trust of ['loopback', '127.0.0.1', '127.0.0.5', '::1', '10.0.0.5, 127.0.0.0/8', '96.0.0.0/3', '::ffff:127.0.0.1', '1', '2']) {
        expect(withoutSignIn(trust), trust).to.throw(/TRUST_PROXY=.* as a proxy without sign-in, so any of them could choose its own client address and host/);
      }
    });

    it('is accepted for a proxy on another machine, and for any proxy with sign-in', () => {
      expect(withoutSignIn('10.0.3.5')().trustProxy).to.deep.equal({ kind: 'addresses', addresses: ['10.0.3.5'] });
      expect(withoutSignIn('10.0.0.0/8, fd00::/8')().trustProxy).to.deep.equal({ kind: 'addresses', addresses: ['10.0.0.0/8', 'fd00::/8'] });
      expect(withSignIn('loopback')).to.deep.equal({ kind: 'addresses', addresses: ['loopback'] });
      expect(withSignIn('1')).to.deep.equal({ kind: 'hops', hops: 1 });
    });

    it('refuses to start with TRUST_PROXY=loopback (exit 2, one line)', async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', TRUST_PROXY: 'loopback', KLS_DIR: '/nonexistent-kls' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).to.equal(2);
      expect(stderr.trim().split('\n')).to.have.length(1);
      expect(stderr).to.include('TRUST_PROXY=loopback');
    });
  });

  describe('behind a trusted proxy on this machine, with sign-in and ALLOWED_HOSTS', () => {
    let provider: OidcProvider;
    let server: SignInServer;
    let token: Record<string, string>;
    before(async () => {
      provider = await OidcProvider.start();
      server = await startSignInServer(provider, { TRUST_PROXY: 'loopback', ALLOWED_HOSTS: 'desk.example.org' });
      token = bearer(await provider.token());
    });
    after(async () => {
      await server.close();
      await provider.close();
    });

    it('refuses a Host it does not accept even when X-Forwarded-Host names an accepted one (a rebinding page writes both)', async () => {
      const forged = { ...token, 'x-forwarded-for': '10.9.9.9', 'x-forwarded-host': 'desk.example.org' };
      const res = await callWithHost(server.url, '/api/identity', 'rebind.evil.example', { headers: forged });
      expectProblem(res, 421);
      expect(server.audit().at(-1)).to.include({ operationId: 'getIdentity', outcome: 'misdirected', address: '10.9.9.9' });
    });

    it('refuses a forwarded host it does not accept behind an accepted Host', async () => {
      const res = await callWithHost(server.url, '/api/identity', 'localhost', { headers: { ...token, 'x-forwarded-for': '203.0.113.20', 'x-forwarded-host': 'evil.example' } });
      expectProblem(res, 421);
    });

    it('answers when both name it', async () => {
      const forwarded = { ...token, 'x-forwarded-for': '203.0.113.21', 'x-forwarded-host': 'desk.example.org' };
      expect((await callWithHost(server.url, '/api/identity', 'localhost', { headers: forwarded })).status).to.equal(200);
      expect((await callWithHost(server.url, '/api/identity', 'desk.example.org', { headers: forwarded })).status).to.equal(200);
    });
  });
});
