import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { SVG_WITH_SCRIPT, TINY_JPEG, TINY_WEBP } from '../helpers/images.js';
import { dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LOGO_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

describe('GET /api/logo/{tenant}', () => {
  let server: TestServer;
  let data: ReturnType<typeof dataDirWith>;
  const logo = async (tenant: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/api/logo/${tenant}`, { headers });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  before(async () => {
    data = dataDirWith({
      tenants: {
        'lab.jpeglogo': {},
        'lab.webplogo': {},
        'lab.mislabelled': { tenant_logo: { columns: 'mime TEXT, data BLOB', rows: [{ mime: 'image/png', data: Buffer.from(SVG_WITH_SCRIPT) }] } },
        'lab.garbage': { tenant_logo: { columns: 'mime TEXT, data BLOB', rows: [{ mime: 'image/png', data: Buffer.from('not an image') }] } },
      },
      broken: ['lab.kaputt'],
      // the name says PNG, the bytes are WebP: the bytes decide
      logos: { 'jpeglogo.jpg': TINY_JPEG, 'webplogo.png': TINY_WEBP, 'garbage.svg': SVG_WITH_SCRIPT },
    });
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  it('sends the PNG stored in the tenant file with cache headers and the CSP', async () => {
    const res = await logo('kantonsspital');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    expect(res.bytes.subarray(1, 4).toString('latin1')).to.equal('PNG');
    expect(res.headers.get('cache-control')).to.equal('public, max-age=86400');
    expect(res.headers.get('etag')).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers.get('content-security-policy')).to.equal(LOGO_CSP);
  });

  it('sends an SVG database logo as image/svg+xml and one mislabelled as PNG by its bytes', async () => {
    const svg = await logo('ost.rehaklinik');
    expect(svg.status).to.equal(200);
    expect(svg.headers.get('content-type')).to.equal('image/svg+xml');
    expect(svg.bytes.toString('utf8')).to.match(/^<svg/);
    const mislabelled = await logo('lab.mislabelled');
    expect(mislabelled.headers.get('content-type')).to.equal('image/svg+xml');
    expect(mislabelled.headers.get('content-security-policy')).to.equal(LOGO_CSP);
  });

  it('falls back to LOGO_DIR/<slug>.(png|svg|jpg|webp), typed by the bytes', async () => {
    const file = await logo('hopital-cantonal');
    expect(file.status).to.equal(200);
    expect(file.headers.get('content-type')).to.equal('image/svg+xml');
    const jpeg = await logo('lab.jpeglogo');
    expect(jpeg.headers.get('content-type')).to.equal('image/jpeg');
    expect(jpeg.bytes.equals(TINY_JPEG)).to.equal(true);
    const webp = await logo('lab.webplogo');
    expect(webp.headers.get('content-type')).to.equal('image/webp');
    expect(webp.bytes.equals(TINY_WEBP)).to.equal(true);
    // a database logo that is no image does not count: the file is used
    expect((await logo('lab.garbage')).headers.get('content-type')).to.equal('image/svg+xml');
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const first = await logo('kantonsspital');
    const again = await logo('kantonsspital', { 'If-None-Match': first.headers.get('etag') as string });
    expect(again.status).to.equal(304);
    expect(again.bytes.length).to.equal(0);
    expect((await logo('kantonsspital', { 'If-None-Match': '"other"' })).status).to.equal(200);
  });

  it('answers 404 problem when the tenant has no logo anywhere, or is unknown', async () => {
    expectProblem(await call(server.url, '/api/logo/west.rehaklinik'), 404);
    expectProblem(await call(server.url, '/api/logo/no-such-tenant'), 404);
  });

  it('answers 400, 409 and 503 problems for a malformed, ambiguous or unusable tenant', async () => {
    expectProblem(await call(server.url, '/api/logo/..%2Fetc'), 400);
    expectProblem(await call(server.url, '/api/logo/Kantonsspital'), 400);
    expectProblem(await call(server.url, '/api/logo/rehaklinik'), 409);
    expectProblem(await call(server.url, '/api/logo/lab.kaputt'), 503);
  });
});
