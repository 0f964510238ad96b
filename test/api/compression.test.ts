import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import { addNotebookCell, cellsOf } from '../helpers/collaboration.js';
import { call } from '../helpers/http.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

/** A GET whose body is read as sent (fetch would decode it): status, headers and the raw bytes. */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(new URL(path, base), { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const decode = (answer: RawAnswer): Buffer =>
  answer.headers['content-encoding'] === 'br' ? zlib.brotliDecompressSync(answer.bytes) : answer.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(answer.bytes) : answer.bytes;

const EXPORT = '/kantonsspital/dimensions/materials/export';
const REPORT_KEY = 'monthly_controlling_2026_10';

describe('compression negotiated by Accept-Encoding', () => {
  let data: ReturnType<typeof tempDir>;
  let server: TestServer;
  before(async () => {
    data = tempDir('ads-compression-');
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  it('streams the CSV export gzip- or brotli-encoded, decoded byte for byte the plain export', async () => {
    const plain = await rawGet(server.url, EXPORT);
    expect(plain.status).to.equal(200);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.bytes.length).to.be.greaterThan(50_000);
    for (const coding of ['gzip', 'br']) {
      const coded = await rawGet(server.url, EXPORT, { 'accept-encoding': coding });
      expect(coded.status).to.equal(200);
      expect(coded.headers['content-encoding']).to.equal(coding);
      expect(coded.headers['content-type']).to.equal('text/csv; charset=utf-8');
      expect(coded.headers['content-length']).to.equal(undefined);
      expect(coded.headers['transfer-encoding']).to.equal('chunked');
      expect(coded.headers.vary).to.match(/Accept-Encoding/);
      expect(coded.bytes.length).to.be.lessThan(plain.bytes.length / 3);
      expect(decode(coded).equals(plain.bytes), coding).to.equal(true);
    }
  });

  it('stops a compressed export whose client goes away (its reading ends, its slot is free again)', async () => {
    // EXPORTS_PER_CALLER is 2: three abandoned exports that kept reading would refuse every further one (429)
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const request = http.get(new URL(EXPORT, server.url), { headers: { 'accept-encoding': 'gzip' }, agent: false }, (res) => {
          expect(res.headers['content-encoding']).to.equal('gzip');
          res.once('data', () => {
            request.destroy();
            resolve();
          });
        });
        request.on('error', (err) => (request.destroyed ? undefined : reject(err)));
      });
    }
    // no reader job of theirs is left over
    await until(() => server.deps.readers.jobCount === 0, { deadline: 10_000, what: 'the abandoned exports to stop reading' });
    await until(async () => (await rawGet(server.url, EXPORT, { 'accept-encoding': 'gzip' })).status === 200, { deadline: 10_000, what: 'an export to be admitted again' });
  });

  it('answers a client without Accept-Encoding (or with identity) as before: the identity bytes and tag', async () => {
    const plain = await rawGet(server.url, '/openapi.json');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    // exactly the serialised contract the server has always sent
    expect(plain.bytes.toString('utf8')).to.equal(server.deps.contract.json);
    expect(Number(plain.headers['content-length'])).to.equal(plain.bytes.length);
    const identity = await rawGet(server.url, '/openapi.json', { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).to.equal(undefined);
    expect(identity.bytes.equals(plain.bytes)).to.equal(true);
    expect(identity.headers.etag).to.equal(plain.headers.etag);
    const refused = await rawGet(server.url, '/openapi.json', { 'accept-encoding': 'gzip;q=0, br;q=0' });
    expect(refused.headers['content-encoding']).to.equal(undefined);
    expect(refused.bytes.equals(plain.bytes)).to.equal(true);
  });

  it('compresses JSON and YAML with a tag of their own, which revalidates (304) in that form', async () => {
    for (const path of ['/openapi.json', '/openapi.yaml']) {
      const plain = await rawGet(server.url, path);
      const gz = await rawGet(server.url, path, { 'accept-encoding': 'deflate, br;q=0.9, gzip;q=0.5' });
      expect(gz.headers['content-encoding'], path).to.equal('br');
      expect(decode(gz).equals(plain.bytes), path).to.equal(true);
      expect(Number(gz.headers['content-length'])).to.equal(gz.bytes.length);
      const tag = plain.headers.etag!;
      expect(gz.headers.etag).to.equal(`${tag.slice(0, -1)}-br"`);
      const gzipOnly = await rawGet(server.url, path, { 'accept-encoding': 'gzip' });
      expect(gzipOnly.headers.etag).to.equal(`${tag.slice(0, -1)}-gzip"`);
      const revalidated = await rawGet(server.url, path, { 'accept-encoding': 'gzip', 'if-none-match': gzipOnly.headers.etag! });
      expect(revalidated.status).to.equal(304);
      expect(revalidated.bytes.length).to.equal(0);
      expect(revalidated.headers.etag).to.equal(gzipOnly.headers.etag);
      expect(revalidated.headers.vary).to.match(/Accept-Encoding/);
    }
  });

  it('compresses the notebook (JSON of the app database) and its tag names the same state in both forms', async () => {
    const plain = await rawGet(server.url, '/kantonsspital/api/notebook');
    // an empty notebook is below the threshold: sent as it is, though the client accepts gzip
    const small = await rawGet(server.url, '/kantonsspital/api/notebook', { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).to.equal(undefined);
    expect(small.headers.vary).to.match(/Accept-Encoding/);
    expect(small.headers.etag).to.equal(plain.headers.etag);
    for (let i = 0; i < 5; i++) await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: `A longer narrative cell number ${i}, `.repeat(8) } });
    const identity = await rawGet(server.url, '/kantonsspital/api/notebook');
    const gz = await rawGet(server.url, '/kantonsspital/api/notebook', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).to.equal('gzip');
    expect(decode(gz).equals(identity.bytes)).to.equal(true);
    expect(gz.headers.etag).to.equal(`${identity.headers.etag!.slice(0, -1)}-gzip"`);
    // the gzip form is what a browser holds: it revalidates, and If-Match takes it
    expect((await rawGet(server.url, '/kantonsspital/api/notebook', { 'accept-encoding': 'gzip', 'if-none-match': gz.headers.etag! })).status).to.equal(304);
    const cells = cellsOf(JSON.parse(identity.bytes.toString('utf8')));
    const changed = await call(server.url, `/kantonsspital/api/notebook/cells/${cells[0]!.id}`, { method: 'DELETE', headers: { 'if-match': gz.headers.etag! } });
    expect(changed.status).to.equal(200);
  });

  it('leaves small bodies, images and PDFs as they are', async () => {
    const health = await rawGet(server.url, '/health', { 'accept-encoding': 'gzip' });
    expect(health.headers['content-encoding']).to.equal(undefined);
    const logo = await rawGet(server.url, '/api/logo/kantonsspital', { 'accept-encoding': 'gzip, br' });
    expect(logo.status).to.equal(200);
    expect(logo.headers['content-type']).to.match(/^image\//);
    expect(logo.headers['content-encoding']).to.equal(undefined);
    expect(logo.headers.vary ?? '').not.to.match(/Accept-Encoding/);
    const report = await rawGet(server.url, `/api/reports/kantonsspital/${REPORT_KEY}`, { 'accept-encoding': 'gzip, br' });
    expect(report.status).to.equal(200);
    expect(report.headers['content-type']).to.equal('application/pdf');
    expect(report.headers['content-encoding']).to.equal(undefined);
    expect(report.bytes.subarray(0, 5).toString()).to.equal('%PDF-');
  });
});
