import Database from 'better-sqlite3';
import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const KEY = 'monthly_controlling_2026_10';

describe('GET /api/reports/{tenant}/{report_key}', () => {
  let server: TestServer;
  let data: ReturnType<typeof dataDirWith>;
  let pdf: Buffer;
  const report = async (headers: Record<string, string> = {}, pathname = `/api/reports/kantonsspital/${KEY}`) => {
    const res = await fetch(server.url + pathname, { headers });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  before(async () => {
    data = dataDirWith({ tenants: { 'lab.noreports': {} }, broken: ['lab.kaputt'] });
    server = await startTestServer({ dataDir: data.dir });
    const db = new Database(data.klsFile('ost.kantonsspital'), { readonly: true });
    pdf = (db.prepare('SELECT pdf FROM report_pdfs WHERE report_key = ?').get(KEY) as { pdf: Buffer }).pdf;
    db.close();
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  it('sends the whole PDF inline with cache, ETag and Accept-Ranges headers', async () => {
    const res = await report();
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    expect(res.headers.get('content-disposition')).to.equal(`inline; filename="${KEY}.pdf"`);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(res.headers.get('accept-ranges')).to.equal('bytes');
    expect(res.headers.get('etag')).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(res.bytes.equals(pdf)).to.equal(true);
    expect(res.bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
  });

  it('answers 206 with the part asked for by bytes=a-b, a- and -n', async () => {
    const first = await report({ Range: 'bytes=0-99' });
    expect(first.status).to.equal(206);
    expect(first.headers.get('content-range')).to.equal(`bytes 0-99/${pdf.length}`);
    expect(first.bytes.equals(pdf.subarray(0, 100))).to.equal(true);
    const open = await report({ Range: 'bytes=100-' });
    expect(open.headers.get('content-range')).to.equal(`bytes 100-${pdf.length - 1}/${pdf.length}`);
    expect(open.bytes.equals(pdf.subarray(100))).to.equal(true);
    const suffix = await report({ Range: 'bytes=-10' });
    expect(suffix.status).to.equal(206);
    expect(suffix.bytes.equals(pdf.subarray(pdf.length - 10))).to.equal(true);
    const beyond = await report({ Range: `bytes=10-${pdf.length + 500}` });
    expect(beyond.headers.get('content-range')).to.equal(`bytes 10-${pdf.length - 1}/${pdf.length}`);
  });

  it('answers 416 problem with Content-Range bytes */size when the range starts past the end', async () => {
    const res = await call(server.url, `/api/reports/kantonsspital/${KEY}`, { headers: { Range: `bytes=${pdf.length}-` } });
    expectProblem(res, 416);
    expect(res.headers.get('content-range')).to.equal(`bytes */${pdf.length}`);
    expectProblem(await call(server.url, `/api/reports/kantonsspital/${KEY}`, { headers: { Range: 'bytes=-0' } }), 416);
  });

  it('sends the whole file for several ranges, a malformed range or a stale If-Range', async () => {
    const cases: Record<string, string>[] = [{ Range: 'bytes=0-9,20-29' }, { Range: 'pages=1-2' }, { Range: 'bytes=9-3' }, { Range: 'bytes=0-9', 'If-Range': '"stale"' }];
    for (const headers of cases) {
      const res = await report(headers);
      expect(res.status, JSON.stringify(headers)).to.equal(200);
      expect(res.bytes.length).to.equal(pdf.length);
    }
  });

  it('answers 304 to a matching If-None-Match, before any Range', async () => {
    const etag = (await report()).headers.get('etag') as string;
    expect((await report({ 'If-None-Match': etag })).status).to.equal(304);
    expect((await report({ 'If-None-Match': etag, Range: 'bytes=0-9' })).status).to.equal(304);
    expect((await report({ 'If-Range': etag, Range: 'bytes=0-9' })).status).to.equal(206);
  });

  it('answers 404 for an unknown key, a file without report_pdfs, or an unknown tenant', async () => {
    expectProblem(await call(server.url, '/api/reports/kantonsspital/no_such_report'), 404);
    expectProblem(await call(server.url, `/api/reports/lab.noreports/${KEY}`), 404);
    expectProblem(await call(server.url, `/api/reports/no-such-tenant/${KEY}`), 404);
  });

  it('answers 400 for a key outside the pattern, 409 and 503 for tenant problems', async () => {
    expectProblem(await call(server.url, '/api/reports/kantonsspital/Monthly-Report'), 400);
    expectProblem(await call(server.url, '/api/reports/kantonsspital/..%2Fsecret'), 400);
    expectProblem(await call(server.url, `/api/reports/rehaklinik/${KEY}`), 409);
    expectProblem(await call(server.url, `/api/reports/lab.kaputt/${KEY}`), 503);
  });
});
