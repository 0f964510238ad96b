import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { tempDir } from '../helpers/server.js';
import { bearer, startSignInServer, type SignInServer } from '../helpers/sign-in.js';
import { REPORT_KEY } from '../helpers/store-cache.js';
import { waitUntil } from '../helpers/store-mode.js';

/** The bounded cache's count of uses: only requests that read a tenant move it, never a refused one. */
describe('KLS store mode with a bounded cache: what counts as a use', function () {
  this.timeout(60_000);
  let store: TestObjectStore;
  let provider: OidcProvider;
  let server: SignInServer;
  let ids: string[];
  const data = tempDir('ads-counts-');
  before(async () => {
    store = await startObjectStore();
    ids = await store.uploadDemo();
    provider = await OidcProvider.start();
    server = await startSignInServer(provider, store.env({ STORE_CACHE_MAX_MB: '100', DATA_DIR: data.dir, KLS_DIR: `${data.dir}/kls`, SEARCH_THREAD: 'off' }));
    const admin = await provider.token({ sub: 'u-ada', email: 'ada@example.org', roles: ['admin'], tenants: ['*'] });
    await waitUntil(async () => {
      const res = await call(server.url, '/api/store-status', { headers: bearer(admin) });
      return res.body.initialized === true && res.body.downloading === false && res.body.tenants.length > 0;
    }, 15_000, 'the store sync');
  });
  after(async () => {
    await server?.close();
    await provider?.close();
    await store?.close();
    data.remove();
  });

  const report = (id: string, headers: Record<string, string> = {}) => call(server.url, `/api/reports/${id}/${REPORT_KEY}`, { headers });

  it("counts nothing for a request refused (401, a tenant outside the caller's scope, a name not listed), and counts a read", async () => {
    const budget = server.deps.store!.cache!.budget;
    const inScope = ids.find((id) => id.startsWith('ost.'))!;
    const outside = ids.find((id) => !id.startsWith('ost.'))!;
    expect(inScope, 'a tenant of pack ost').to.be.a('string');
    expect(outside, 'a tenant of another pack').to.be.a('string');
    const viewer = await provider.token({ sub: 'u-vera', email: 'vera@example.org', roles: ['viewer'], tenants: ['ost.*'] });
    for (let i = 0; i < 20; i++) {
      expectProblem(await report(outside), 401);
      expectProblem(await report(outside, bearer(viewer)), 404);
      expectProblem(await report('west.not-listed', bearer(viewer)), 404);
      expectProblem(await report(`${outside.split('.')[0]}.${'x'.repeat(40)}`, bearer(viewer)), 404);
    }
    expect(budget.usesOf(outside)).to.equal(0);
    expect(budget.usesOf('west.not-listed')).to.equal(0);
    expect(server.deps.tenants.get(outside)!.handle, 'the tenant outside the scope was not fetched').to.equal(null);
    // the measure moves for a read the caller may make
    expect((await report(inScope, bearer(viewer))).status).to.equal(200);
    expect(budget.usesOf(inScope)).to.be.greaterThan(0);
  });
});
