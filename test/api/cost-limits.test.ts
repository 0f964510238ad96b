import { expect } from 'chai';
import http from 'node:http';
import { generateDemo } from '../../src/demo/generate.js';
import { DEMO_FINDING, startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.js';
import { call, expectProblem, heldExport } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { bearer, startSignInServer, type SignInServer } from '../helpers/sign-in.js';
import { EXAMPLE_SIGNAL } from '../helpers/signals.js';
import { until } from '../helpers/until.js';

const KEY = 'sk-ant-limits';
const finding = DEMO_FINDING;

/** A JSON POST from a given loopback address (the limit key without sign-in). */
function postFrom(localAddress: string, url: string, body: unknown): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The status of a small export, asked again while it is 429 (a closed download frees its slot once the server notices). */
async function exportOnceFree(base: string): Promise<number> {
  return until(
    async () => {
      const { status } = await call(base, '/kantonsspital/dimensions/cost_centres/export');
      return status !== 429 && status;
    },
    { deadline: 5000, what: 'an export slot to be free' },
  );
}

describe('limits on costly work', function () {
  this.timeout(60_000);

  describe('without sign-in, per client address', () => {
    let anthropic: FakeAnthropic;
    let server: TestServer;
    const data = tempDir('ads-limits-');

    before(async () => {
      anthropic = await startFakeAnthropic(KEY);
      // 100,000 rows of materials: an export that is not read stays running
      generateDemo({ out: data.dir, tenants: 3, rows: 100_000 });
      server = await startTestServer({
        dataDir: data.dir,
        env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropic.url, NARRATIVE_PER_MINUTE: '2', SIGNAL_TOOLS_PER_MINUTE: '3' },
      });
    });
    after(async () => {
      await server.close();
      await anthropic.close();
      data.remove();
    });

    it('answers 429 with Retry-After past the narratives per minute, counting each address apart, and calls no model then', async () => {
      const url = `${server.url}/api/explain-narrative`;
      const body = { tenant: 'kantonsspital', finding };
      expect((await postFrom('127.0.0.1', url, body)).status).to.equal(200);
      expect((await postFrom('127.0.0.1', url, body)).status).to.equal(200);
      const calls = anthropic.requests.length;
      const refused = await postFrom('127.0.0.1', url, body);
      expect(refused.status).to.equal(429);
      expect(refused.headers['content-type']).to.equal('application/problem+json');
      expect(refused.body.detail).to.match(/^at most 2 narratives per minute per caller; retry in \d+ s$/);
      expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
      expect(anthropic.requests.length).to.equal(calls);
      expect((await postFrom('127.0.0.2', url, body)).status).to.equal(200);
    });

    it('counts validations and compilations together per minute', async () => {
      const yaml = { yaml: EXAMPLE_SIGNAL };
      expect((await call(server.url, '/api/probe-builder/validate', { method: 'POST', json: yaml })).status).to.equal(200);
      expect((await call(server.url, '/api/probe-builder/compile', { method: 'POST', json: yaml })).status).to.equal(200);
      expect((await call(server.url, '/api/probe-builder/validate', { method: 'POST', json: yaml })).status).to.equal(200);
      const refused = await call(server.url, '/api/probe-builder/compile', { method: 'POST', json: yaml });
      expectProblem(refused, 429);
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
    });

    it('runs at most two exports at once per caller and admits the next when one ends', async () => {
      const exportUrl = `${server.url}/kantonsspital/dimensions/materials/export`;
      const first = await heldExport(exportUrl);
      const second = await heldExport(exportUrl);
      try {
        expect([first.status, second.status]).to.deep.equal([200, 200]);
        const third = await call(server.url, '/kantonsspital/dimensions/materials/export');
        expectProblem(third, 429);
        expect(third.headers.get('retry-after')).to.equal('10');
        expect(third.body.detail).to.include('at most 2 exports at once per caller');
        first.close();
        expect(await exportOnceFree(server.url)).to.equal(200);
      } finally {
        first.close();
        second.close();
      }
    });

    it('gives a refused export its slot back: the caller is not locked out', async () => {
      const exportUrl = `${server.url}/kantonsspital/dimensions/materials/export`;
      const held = [await heldExport(exportUrl), await heldExport(exportUrl)];
      for (let i = 0; i < 5; i++) expectProblem(await call(server.url, '/kantonsspital/dimensions/cost_centres/export'), 429);
      for (const h of held) h.close();
      expect(await exportOnceFree(server.url)).to.equal(200);
      const again = [await heldExport(exportUrl), await heldExport(exportUrl)];
      try {
        expect(again.map((h) => h.status)).to.deep.equal([200, 200]);
      } finally {
        for (const h of again) h.close();
      }
    });
  });

  describe('with sign-in, per token subject', () => {
    let provider: OidcProvider;
    let anthropic: FakeAnthropic;
    let server: SignInServer;

    before(async () => {
      provider = await OidcProvider.start();
      anthropic = await startFakeAnthropic(KEY);
      server = await startSignInServer(provider, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: anthropic.url, NARRATIVE_PER_MINUTE: '1' });
    });
    after(async () => {
      await server.close();
      await anthropic.close();
      await provider.close();
    });

    it('counts narratives per sub, whatever address they come from', async () => {
      const anna = bearer(await provider.token({ sub: 'u-anna', roles: ['viewer'] }));
      const ben = bearer(await provider.token({ sub: 'u-ben', roles: ['viewer'] }));
      const narrate = (headers: Record<string, string>) => call(server.url, '/api/explain-narrative', { method: 'POST', headers, json: { tenant: 'kantonsspital', finding } });
      expect((await narrate(anna)).status).to.equal(200);
      const refused = await narrate(anna);
      expectProblem(refused, 429);
      expect(refused.headers.get('vary')).to.match(/authorization/i);
      expect((await narrate(ben)).status).to.equal(200);
      expect(server.audit().filter((l) => l.outcome === 'rate-limited').map((l) => [l.operationId, l.user.sub])).to.deep.equal([['createNarrative', 'u-anna']]);
    });
  });
});
