import { expect } from 'chai';
import { ManualClock } from '../helpers/clock.js';
import { call, expectProblem } from '../helpers/http.js';
import { bearer, signInWorld } from '../helpers/sign-in.js';

/** The default clock tolerance, in seconds. */
const TOLERANCE_S = 30;

describe('a token issued in the future (iat)', function () {
  this.timeout(30_000);
  // the server's clock is set to the second the token was minted in, so that its iat is exactly that far ahead
  const clock = new ManualClock();
  const world = signInWorld({}, clock.oidcTiming());

  /** A token whose iat lies `seconds` ahead of the server's clock. */
  async function issuedAhead(seconds: number): Promise<string> {
    const token = await world.provider.token({}, { issuedAt: seconds, expiresIn: seconds + 600 });
    const { iat } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { iat: number };
    clock.set((iat - seconds) * 1000);
    return token;
  }

  it('is refused like one not valid yet (nbf) past the clock tolerance: 401 naming iat, audited', async () => {
    for (const seconds of [24 * 3600, TOLERANCE_S + 1]) {
      const token = await issuedAhead(seconds);
      const res = await call(world.server.url, '/api/identity', { headers: bearer(token) });
      expectProblem(res, 401);
      expect(res.body.detail, String(seconds)).to.include('the token is issued in the future (iat)');
      expect(res.headers.get('www-authenticate')).to.include('error="invalid_token"');
      expect(world.server.audit().at(-1)).to.include({ operationId: 'getIdentity', outcome: 'unauthenticated' });
    }
  });

  it('is accepted within the clock tolerance, as nbf is', async () => {
    for (const seconds of [TOLERANCE_S, 0]) {
      const token = await issuedAhead(seconds);
      expect((await call(world.server.url, '/api/identity', { headers: bearer(token) })).status, String(seconds)).to.equal(200);
    }
  });
});
