import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { callWithHost, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { bearer, startSignInServer, storedState } from '../helpers/sign-in.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('host names (ALLOWED_HOSTS)', () => {
  describe('a desk without sign-in', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ env: { ALLOWED_HOSTS: 'desk.example.org,*.corp.example' } });
    });
    after(async () => server.close());

    it('answers 421 for a Host it does not know, listing no tenant', async () => {
      const res = await callWithHost(server.url, '/api/jumpbar?mode=tenants', `evil.example:${server.port}`);
      expectProblem(res, 421);
      expect(res.body.type).to.equal('https://analytics-desk.example/problems/misdirected-request');
      expect(JSON.stringify(res.body)).not.to.include('kantonsspital');
      expectProblem(await callWithHost(server.url, '/health', 'corp.example'), 421);
      expectProblem(await callWithHost(server.url, '/api/nothing-here', 'evil.example'), 421);
      expectProblem(await callWithHost(server.url, '/health', 'localhost:80x'), 421);
    });

    it('answers its loopback names and the listed ones, with any port', async () => {
      for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, 'LOCALHOST', `[::1]:${server.port}`, 'desk.example.org', 'desk.example.org.:443', 'a.corp.example', 'b.a.corp.example:8080']) {
        const res = await callWithHost(server.url, '/api/jumpbar?mode=tenants', host);
        expect(res.status, host).to.equal(200);
        expect(res.body.tenants.length, host).to.be.greaterThan(0);
      }
    });

    it('changes nothing for a refused write: the body is not even read', async () => {
      const before = storedState(server.dataDir);
      const view = { tenant: 'kantonsspital', entity: 'cost_centres', name: 'From a rebound page', params: {} };
      expectProblem(await callWithHost(server.url, '/api/views', 'evil.example', { method: 'POST', json: view }), 421);
      const note = { title: 'planted' };
      expectProblem(await callWithHost(server.url, '/kantonsspital/api/notes', 'evil.example', { method: 'POST', json: note }), 421);
      expect(storedState(server.dataDir)).to.deep.equal(before);
    });
  });

  it('accepts only loopback names without ALLOWED_HOSTS', async () => {
    const server = await startTestServer();
    try {
      expect((await callWithHost(server.url, '/health', `127.0.0.1:${server.port}`)).status).to.equal(200);
      expectProblem(await callWithHost(server.url, '/health', 'desk.example.org'), 421);
    } finally {
      await server.close();
    }
  });

  it('with sign-in accepts every Host unless ALLOWED_HOSTS is set', async () => {
    const provider = await OidcProvider.start();
    const open = await startSignInServer(provider);
    const listed = await startSignInServer(provider, { ALLOWED_HOSTS: 'desk.example.org' });
    try {
      const token = await provider.token();
      expect((await callWithHost(open.url, '/api/identity', 'desk.example.org', { headers: bearer(token) })).status).to.equal(200);
      expect((await callWithHost(open.url, '/api/identity', 'anything.example', { headers: bearer(token) })).status).to.equal(200);
      expect((await callWithHost(listed.url, '/api/identity', 'desk.example.org', { headers: bearer(token) })).status).to.equal(200);
      expectProblem(await callWithHost(listed.url, '/api/identity', 'anything.example', { headers: bearer(token) }), 421);
    } finally {
      await open.close();
      await listed.close();
      await provider.close();
    }
  });

  it('refuses to start without sign-in on a non-loopback address unless ALLOWED_HOSTS is set (exit 2, one line)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, HOST: '0.0.0.0', PORT: '0', KLS_DIR: '/nonexistent-kls' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).to.equal(2);
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.match(/^invalid configuration: HOST=0\.0\.0\.0 listens beyond this machine without sign-in; set ALLOWED_HOSTS/);
  });
});
