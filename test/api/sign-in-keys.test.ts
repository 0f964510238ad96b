import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../src/config.js';
import { DEFAULT_OIDC_TIMING } from '../../src/auth/oidc.js';
import { ManualClock } from '../helpers/clock.js';
import { call, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { bearer, startSignInServer, type SignInServer } from '../helpers/sign-in.js';
import { startTestServer } from '../helpers/server.js';

const { cooldownMs, cacheMaxAgeMs } = DEFAULT_OIDC_TIMING;

/** The status of a protected request with `token`. */
async function statusWith(server: SignInServer, token: string): Promise<number> {
  return (await call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })).status;
}

/** Sends `count` tokens whose kid the server does not know, at once; each must be refused with 401. */
async function unknownKids(provider: OidcProvider, server: SignInServer, count: number, label: string): Promise<void> {
  const strangers = await Promise.all(Array.from({ length: count }, (_, i) => provider.token({}, { kid: `${label}-${i}` })));
  const answers = await Promise.all(strangers.map((token) => call(server.url, '/api/views?tenant=kantonsspital', { headers: bearer(token) })));
  for (const res of answers) expectProblem(res, 401);
  expect(answers[0]!.body.detail).to.match(/\(kid\)/);
}

/** The `iat` and `exp` of a token, in seconds. */
function timesOf(token: string): { iat: number; exp: number } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { iat: number; exp: number };
}

// The server reads every time of the provider's keys and of the tokens from a clock the test moves (ManualClock):
// a cooldown or an expiry is passed by setting the clock, never by waiting for it.
describe('sign-in keys: discovery, caching and rotation', () => {
  let provider: OidcProvider;
  let clock: ManualClock;
  beforeEach(async () => {
    provider = await OidcProvider.start();
    clock = new ManualClock();
  });
  afterEach(async () => provider.close());

  it('fetches the keys once at start and not again for a flood of unknown kids within the cooldown', async () => {
    const server = await startSignInServer(provider, {}, clock.oidcTiming());
    try {
      expect(provider.jwksRequests).to.equal(1);
      await unknownKids(provider, server, 50, 'unknown');
      expect(provider.jwksRequests).to.equal(1);
      clock.advance(cooldownMs - 1);
      await unknownKids(provider, server, 10, 'still-unknown');
      expect(provider.jwksRequests).to.equal(1);
      expect(await statusWith(server, await provider.token())).to.equal(200);
      expect(provider.jwksRequests).to.equal(1);
    } finally {
      await server.close();
    }
  });

  it('accepts tokens of a rotated key after one refetch once the cooldown has passed, and asks once per cooldown under a flood', async () => {
    const server = await startSignInServer(provider, {}, clock.oidcTiming());
    try {
      const old = await provider.token();
      await provider.rotate('ES256');
      const fresh = await provider.token();
      // within the cooldown since the start's fetch: refused without asking the provider
      expect(await statusWith(server, fresh)).to.equal(401);
      expect(provider.jwksRequests).to.equal(1);
      clock.advance(cooldownMs);
      expect(await statusWith(server, fresh)).to.equal(200);
      expect(provider.jwksRequests).to.equal(2);
      // the old key left the provider's set: its tokens no longer verify, and asking again waits for the cooldown
      expect(await statusWith(server, old)).to.equal(401);
      expect(provider.jwksRequests).to.equal(2);

      // a flood of unknown kids asks the provider once per cooldown, however many arrive
      await unknownKids(provider, server, 20, 'flood-a');
      expect(provider.jwksRequests).to.equal(2);
      clock.advance(cooldownMs - 1);
      await unknownKids(provider, server, 20, 'flood-b');
      expect(provider.jwksRequests).to.equal(2);
      clock.advance(1);
      await unknownKids(provider, server, 20, 'flood-c');
      expect(provider.jwksRequests).to.equal(3);
      await unknownKids(provider, server, 20, 'flood-d');
      expect(provider.jwksRequests).to.equal(3);
      expect(await statusWith(server, fresh)).to.equal(200);
    } finally {
      await server.close();
    }
  });

  it('fetches the keys again once they are older than the cache age, before verifying the next token', async () => {
    const server = await startSignInServer(provider, {}, clock.oidcTiming());
    try {
      expect(await statusWith(server, await provider.token({}, { expiresIn: 3600 }))).to.equal(200);
      clock.advance(cacheMaxAgeMs - 1);
      expect(await statusWith(server, await provider.token({ sub: 'u-ben' }, { expiresIn: 3600 }))).to.equal(200);
      expect(provider.jwksRequests).to.equal(1);
      clock.advance(1);
      expect(await statusWith(server, await provider.token({ sub: 'u-cleo' }, { expiresIn: 3600 }))).to.equal(200);
      expect(provider.jwksRequests).to.equal(2);
    } finally {
      await server.close();
    }
  });

  it('keeps the keys it has while the provider cannot be reached, and asks it at most once per cooldown', async () => {
    const server = await startSignInServer(provider, {}, clock.oidcTiming());
    try {
      const token = await provider.token();
      provider.jwksAvailable = false;
      // unknown kids: refused without asking while the cooldown since the start's fetch lasts, then it is asked once
      await unknownKids(provider, server, 5, 'down');
      expect(provider.jwksRequests).to.equal(1);
      clock.advance(cooldownMs);
      await unknownKids(provider, server, 5, 'down-later');
      expect(provider.jwksRequests).to.equal(2);
      // within the next cooldown, more unknown kids ask nothing, and the keys fetched before still verify
      await unknownKids(provider, server, 20, 'down-more');
      expect(await statusWith(server, token)).to.equal(200);
      expect(provider.jwksRequests).to.equal(2);
      expect(server.lines.some((l) => /signing keys could not be fetched/.test(l.msg))).to.equal(true);
    } finally {
      await server.close();
    }
  });

  it('remembers a verified token, but never past its exp', async () => {
    const server = await startSignInServer(provider, { OIDC_CLOCK_TOLERANCE_S: '0' }, clock.oidcTiming());
    try {
      const token = await provider.token({}, { expiresIn: 2 });
      const { iat, exp } = timesOf(token);
      clock.set(iat * 1000);
      for (let i = 0; i < 3; i++) expect(await statusWith(server, token)).to.equal(200);
      clock.set(exp * 1000 - 1); // the last millisecond before exp: still valid
      expect(await statusWith(server, token)).to.equal(200);
      clock.set(exp * 1000);
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

  it('stops the start when the provider does not answer before the start deadline, after trying once a second', async () => {
    let tries = 0;
    const unready = http.createServer((_req, res) => {
      tries++;
      res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => unready.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(unready.address() as AddressInfo).port}/realms/desk`;
    let error: unknown;
    const started = clock.now();
    try {
      await startTestServer({ env: { AUTH_MODE: 'oidc', OIDC_ISSUER: issuer, OIDC_AUDIENCE: 'analytics-desk' }, oidcTiming: clock.oidcTiming({ startDeadlineMs: 2500 }) });
    } catch (err) {
      error = err;
    } finally {
      await new Promise((resolve) => unready.close(resolve));
    }
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as Error).message).to.match(/OIDC_ISSUER: the discovery document at http:\/\/127\.0\.0\.1:\d+\/realms\/desk\/\.well-known\/openid-configuration could not be read: HTTP 503/);
    // tries at 0, 1 and 2 s on the server's clock; a fourth would come after the deadline
    expect(tries).to.equal(3);
    expect(clock.now() - started).to.equal(2000);
  });
});
