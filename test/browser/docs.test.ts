import { expect } from 'chai';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSignInServer, type SignInServer } from '../helpers/sign-in.js';
import { authorizeBearer, documentedOperations, openDocs, operationBlock, tryItOut } from '../helpers/swagger-ui.js';

// Swagger UI at /docs in headless Chromium (test/helpers/browser.ts says where it is looked for). No Chromium, or one
// that cannot start, fails the `before` hook: this test never skips.
describe('GET /docs in a browser (Swagger UI)', function () {
  this.timeout(60_000);
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const open = async (base: string, viewport?: { width: number; height: number }) => {
    const opened = await openDocs(browser, base, viewport);
    contexts.push(opened.context);
    return opened;
  };

  before(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  after(async () => {
    await browser?.close();
  });

  describe('without sign-in', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(async () => {
      await server?.close();
    });

    it('shows every operation of openapi.yaml', async () => {
      const { page, errors } = await open(server.url);
      const operations = documentedOperations();
      expect(operations).to.have.length.greaterThan(40);
      // when some never appear, the list below names them
      await page.locator('.swagger-ui .opblock').nth(operations.length - 1).waitFor().catch(() => undefined);
      const missing: string[] = [];
      for (const op of operations) {
        if ((await operationBlock(page, op.tag, op.operationId).count()) !== 1) missing.push(`${op.tag}-${op.operationId}`);
      }
      expect(missing, 'operations Swagger UI does not show').to.deep.equal([]);
      expect(await page.locator('.swagger-ui .opblock').count()).to.equal(operations.length);
      expect(errors.map(String), 'uncaught page errors').to.deep.equal([]);
    });

    it('opens on the operations: at 1280×800 the introduction and the first operation fit the first screen', async () => {
      const screen = { width: 1280, height: 800 };
      const { page } = await open(server.url, screen);
      const [first] = documentedOperations();
      const block = operationBlock(page, first!.tag, first!.operationId);
      const box = await block.boundingBox();
      expect(box, `${first!.method} ${first!.path} is rendered`).to.not.equal(null);
      expect(await page.evaluate('window.scrollY'), 'scrolled').to.equal(0);
      expect(box!.y, 'the first operation starts on the screen').to.be.within(0, screen.height);
      expect(box!.y + box!.height, `the first operation ends within the first ${screen.height} px`).to.be.at.most(screen.height);
      // the introduction is there above it, with the two modes and where the reference is
      const introduction = page.locator('.swagger-ui .info .description');
      expect(await introduction.textContent()).to.include('Local mode').and.include('Store mode');
      const anchors = introduction.locator('a');
      const links = await Promise.all((await anchors.all()).map((anchor) => anchor.getAttribute('href')));
      expect(links).to.include.members(['https://analytics-desk.example/docs/errors.md', 'https://analytics-desk.example/docs/README.md']);
    });

    it('runs Try it out on GET /health against the server that serves the page', async () => {
      const { page } = await open(server.url);
      const response = await tryItOut(page, 'Health', 'getHealth');
      // the contract's server is relative (`/`), so the request goes to this server's ephemeral port
      expect(response.requestUrl).to.equal(`${server.url}/health`);
      expect(response.status, response.details).to.equal('200');
      expect(response.body).to.include('"status"');
      expect(JSON.parse(response.body)).to.include({ status: 'ok', mode: 'local' });
    });
  });

  describe('with sign-in (AUTH_MODE=oidc)', () => {
    let provider: OidcProvider;
    let server: SignInServer;
    before(async () => {
      provider = await OidcProvider.start();
      server = await startSignInServer(provider);
    });
    after(async () => {
      await server?.close();
      await provider?.close();
    });

    it('answers GET /api/identity with the token holder after Authorize', async () => {
      const token = await provider.token({ sub: 'u-docs', name: 'Dora Docs', roles: ['viewer'], tenants: ['ost.*'] });
      const { page } = await open(server.url);
      await authorizeBearer(page, token);
      const response = await tryItOut(page, 'Health', 'getIdentity');
      expect(response.status, response.details).to.equal('200');
      expect(JSON.parse(response.body)).to.deep.include({ name: 'Dora Docs', roles: ['viewer'], tenants: ['ost.*'] });
    });

    it('answers GET /api/identity with 401 without Authorize', async () => {
      const { page } = await open(server.url);
      const response = await tryItOut(page, 'Health', 'getIdentity');
      expect(response.status, response.details).to.equal('401');
      expect(JSON.parse(response.body)).to.include({ status: 401 });
    });
  });
});
