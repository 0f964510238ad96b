import { expect } from 'chai';
import { ConfigError } from '../../src/config.js';
import { DEFAULT_OIDC_TIMING, type OidcTiming } from '../../src/auth/oidc.js';
import { call, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { bearer, startSignInServer } from '../helpers/sign-in.js';
import { startTestServer } from '../helpers/server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's timing with a one-second cooldown, so that a test can wait it out. */
const SHORT: OidcTiming = { ...DEFAULT_OIDC_TIMING, cooldownMs: 1000 };

describe('sign-in keys: discovery, caching and rotation', () => {
  let provider: OidcProvider;
  beforeEach(async () => {
    provider = await OidcProvider.start();
  });
  afterEach(async () => provider.close());

  it('fetches the keys once at start and not again for a flood of unknown kids within the 30 s cooldown', async () => {
    const server = await startSignInServer(provider);
    try {
      expect(provider.jwksRequests).to.equal(1);
      const strangers = await Promise.all(Array.from({ length: 50 }, (_, i) => provider.token({}, { kid: `unknown-${i}` })));
      const answers = await Promise.all(strangers.map((token) => call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })));
      for (const res of answers) expectProblem(res, 401);
      expect(answers[0]!.body.detail).to.match(/\(kid\)/);
      expect(provider.jwksRequests).to.equal(1);
      expect((await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(await provider.token()) })).status).to.equal(200);
      expect(provider.jwksRequests).to.equal(1);
    } finally {
      await server.close();
    }
  });

  it('accepts tokens of a rotated key after one refetch, and spaces refetches by the cooldown under a flood', async () => {
    const server = await startSignInServer(provider, {}, SHORT);
    try {
      const old = await provider.token();
      await provider.rotate('ES256');
      await sleep(1100);
      const fresh = await provider.token();
      expect((await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(fresh) })).status).to.equal(200);
      expect(provider.jwksRequests).to.equal(2);
      // the old key left the provider's set: its tokens no longer verify
      expectProblem(await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(old) }), 401);

      // 2.5 s of unknown kids, 20 a second: at most one fetch per started second
      const before = provider.jwksRequests;
      const started = Date.now();
      while (Date.now() - started < 2500) {
        const burst = await Promise.all(Array.from({ length: 4 }, (_, i) => provider.token({}, { kid: `flood-${Date.now()}-${i}` })));
        await Promise.all(burst.map((token) => call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })));
        await sleep(200);
      }
      expect(provider.jwksRequests - before).to.be.within(1, 3);
    } finally {
      await server.close();
    }
  });

  it('keeps the keys it has while the provider cannot be reached, and asks it at most once per cooldown', async () => {
    const server = await startSignInServer(provider, {}, SHORT);
    try {
      const token = await provider.token();
      provider.jwksAvailable = false;
      await sleep(1100);
      const strangers = await Promise.all(Array.from({ length: 20 }, (_, i) => provider.token({}, { kid: `down-${i}` })));
      for (const stranger of strangers) expectProblem(await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(stranger) }), 401);
      expect((await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })).status).to.equal(200);
      expect(provider.jwksRequests).to.equal(2);
      expect(server.lines.some((l) => /signing keys could not be fetched/.test(l.msg))).to.equal(true);
    } finally {
      await server.close();
    }
  });

  it('remembers a verified token, but never past its exp', async () => {
    const server = await startSignInServer(provider, { OIDC_CLOCK_TOLERANCE_S: '0' });
    try {
      const token = await provider.token({}, { expiresIn: 2 });
      for (let i = 0; i < 3; i++) expect((await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })).status).to.equal(200);
      await sleep(2100);
      const late = await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) });
      expectProblem(late, 401);
      expect(late.body.detail).to.equal('the token has expired (exp)');
    } finally {
      await server.close();
    }
  });

  it('stops the start with a one-line configuration error when the issuer is not the one the provider names', async () => {
    let error: unknown;
    try {
      await startTestServer({ env: { AUTH_MODE: 'oidc', OIDC_ISSUER: `${provider.issuer}/`, OIDC_AUDIENCE: 'analytics-desk' } });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as Error).message).to.match(/^invalid configuration: OIDC_ISSUER: the discovery document at .* names the issuer/);
    expect((error as Error).message).not.to.include('\n');
  });

  it('stops the start when the provider does not answer before the start deadline', async () => {
    await provider.close();
    let error: unknown;
    const started = Date.now();
    try {
      await startTestServer({
        env: { AUTH_MODE: 'oidc', OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: 'analytics-desk' },
        oidcTiming: { ...DEFAULT_OIDC_TIMING, startDeadlineMs: 2500 },
      });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as Error).message).to.match(/OIDC_ISSUER: the discovery document at http:\/\/127\.0\.0\.1:\d+\/realms\/desk\/\.well-known\/openid-configuration could not be read/);
    expect(Date.now() - started).to.be.within(1500, 6000);
    provider = await OidcProvider.start();
  });
});
