import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { bearer, signInWorld } from '../helpers/sign-in.js';

describe('a token issued in the future (iat)', function () {
  this.timeout(30_000);
  // the default tolerance: 30 s
  const world = signInWorld();

  it('is refused like one not valid yet (nbf) past the clock tolerance: 401 naming iat, audited', async () => {
    for (const seconds of [24 * 3600, 60]) {
      const token = await world.provider.token({}, { issuedAt: seconds, expiresIn: seconds + 600 });
      const res = await call(world.server.url, '/api/identity', { headers: bearer(token) });
      expectProblem(res, 401);
      expect(res.body.detail, String(seconds)).to.include('the token is issued in the future (iat)');
      expect(res.headers.get('www-authenticate')).to.include('error="invalid_token"');
      expect(world.server.audit().at(-1)).to.include({ operationId: 'getIdentity', outcome: 'unauthenticated' });
    }
  });

  it('is accepted within the clock tolerance, as nbf is', async () => {
    const token = await world.provider.token({}, { issuedAt: 20 });
    expect((await call(world.server.url, '/api/identity', { headers: bearer(token) })).status).to.equal(200);
    expect((await call(world.server.url, '/api/identity', { headers: bearer(await world.provider.token()) })).status).to.equal(200);
  });
});
