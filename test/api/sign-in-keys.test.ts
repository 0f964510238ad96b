import { expect } from 'chai';
import { ConfigError } from '../../src/config.js';
import { DEFAULT_OIDC_TIMING, type OidcTiming } from '../../src/auth/oidc.js';
import { call, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { bearer, startSignInServer } from '../helpers/sign-in.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

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
      const fresh = await provider.token();
      // refused without a fetch while the cooldown since the start's fetch lasts, then accepted after one refetch
      const refused = new Set<number>();
      await until(
        async () => {
          const res = await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(fresh) });
          if (res.status !== 200) refused.add(res.status);
          return res.status === 200;
        },
        { every: 50, what: 'a token of the rotated key to be accepted' },
      );
      for (const status of refused) expect(status, 'answer before the refetch').to.equal(401);
      expect(provider.jwksRequests).to.equal(2);
      // the old key left the provider's set: its tokens no longer verify
      expectProblem(await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(old) }), 401);

      // a flood of unknown kids until the provider has been asked twice more: each fetch a cooldown after the last
      const before = provider.jwksRequests;
      let flood = 0;
      await until(
        async () => {
          const burst = await Promise.all(Array.from({ length: 4 }, () => provider.token({}, { kid: `flood-${flood++}` })));
          for (const res of await Promise.all(burst.map((token) => call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })))) expectProblem(res, 401);
          return provider.jwksRequests - before >= 2;
        },
        { what: 'two refetches under the flood' },
      );
      expect(provider.jwksRequests - before).to.equal(2);
      expect(flood, 'unknown kids sent').to.be.above(20);
      const times = provider.jwksRequestTimes.slice(-3); // the refetch that found the new key, then the flood's two
      // the server spaces its requests by the cooldown; they arrive a little later each, hence the margin
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!, `fetch ${i} after the one before`).to.be.above(SHORT.cooldownMs * 0.8);
    } finally {
      await server.close();
    }
  });

  it('keeps the keys it has while the provider cannot be reached, and asks it at most once per cooldown', async () => {
    const server = await startSignInServer(provider, {}, SHORT);
    try {
      const token = await provider.token();
      provider.jwksAvailable = false;
      // unknown kids: refused without asking while the cooldown since the start's fetch lasts, then it is asked once
      let down = 0;
      await until(
        async () => {
          expectProblem(await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(await provider.token({}, { kid: `down-${down++}` })) }), 401);
          return provider.jwksRequests === 2;
        },
        { every: 50, what: 'the server to ask the provider again' },
      );
      // within the next cooldown, more unknown kids ask nothing, and the keys fetched before still verify
      const strangers = await Promise.all(Array.from({ length: 20 }, (_, i) => provider.token({}, { kid: `down-more-${i}` })));
      for (const res of await Promise.all(strangers.map((stranger) => call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(stranger) })))) {
        expectProblem(res, 401);
      }
      expect((await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })).status).to.equal(200);
      expect(provider.jwksRequests).to.equal(2);
      expect(server.lines.some((l) => /signing keys could not be fetched/.test(l.msg))).to.equal(true);
    } finally {
      await server.close();
    }
  });

  it('remembers a verified token, but never past its exp', async () => {
    // the server's clock for token times, moved on by the test instead of waiting
    let ahead = 0;
    const server = await startSignInServer(provider, { OIDC_CLOCK_TOLERANCE_S: '0' }, { ...DEFAULT_OIDC_TIMING, now: () => Date.now() + ahead });
    try {
      const token = await provider.token({}, { expiresIn: 2 });
      for (let i = 0; i < 3; i++) expect((await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })).status).to.equal(200);
      const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).exp as number;
      ahead = exp * 1000 - Date.now() - 500; // half a second before exp: still valid, remembered or not
      expect((await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })).status).to.equal(200);
      ahead = exp * 1000 - Date.now() + 100; // just past exp
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
