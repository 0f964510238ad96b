import Database from 'better-sqlite3';
import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { KLS_COLUMNS, dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// The URL getPipelineArtifact names with `graph_html` belongs to this operation, matched before the templated path:
// it must answer as that URL always did (test/api/get-pipeline-artifact.test.ts asks it through the templated path).
describe('GET /api/pipeline/{tenant}/graph_html', () => {
  let server: TestServer;
  let data: ReturnType<typeof dataDirWith>;
  before(async () => {
    data = dataDirWith({
      tenants: {
        'lab.noartifacts': {},
        'lab.jsononly': { pipeline_artifacts: { columns: KLS_COLUMNS.pipeline_artifacts, rows: [{ artifact_key: 'graph_json', content: '{"nodes": []}' }] } },
      },
      broken: ['lab.kaputt'],
    });
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  const storedHtml = (): string => {
    const db = new Database(data.klsFile('ost.kantonsspital'), { readonly: true });
    try {
      return (db.prepare("SELECT content FROM pipeline_artifacts WHERE artifact_key = 'graph_html'").get() as { content: string }).content;
    } finally {
      db.close();
    }
  };

  it('sends the stored HTML as text/html, cached for an hour, in a sandbox that can fetch nothing', async () => {
    const res = await call(server.url, '/api/pipeline/kantonsspital/graph_html');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.text).to.equal(storedHtml());
    expect(res.text).to.match(/^<!DOCTYPE html>/i);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(res.headers.get('etag')).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers.get('content-security-policy')).to.equal("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; sandbox allow-scripts");
  });

  it('answers the composite tenant ID alike, whatever Accept a generated client sends', async () => {
    const plain = await call(server.url, '/api/pipeline/kantonsspital/graph_html');
    for (const accept of ['application/json', 'application/problem+json', 'text/html']) {
      const res = await call(server.url, '/api/pipeline/ost.kantonsspital/graph_html', { headers: { accept } });
      expect(res.status, accept).to.equal(200);
      expect(res.headers.get('content-type'), accept).to.match(/^text\/html/);
      expect(res.text, accept).to.equal(plain.text);
      expect(res.headers.get('etag'), accept).to.equal(plain.headers.get('etag'));
    }
  });

  it('leaves graph_json to getPipelineArtifact', async () => {
    const res = await call(server.url, '/api/pipeline/kantonsspital/graph_json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json');
    expect(res.body.nodes).to.be.an('array');
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const first = await call(server.url, '/api/pipeline/kantonsspital/graph_html');
    const again = await call(server.url, '/api/pipeline/kantonsspital/graph_html', { headers: { 'If-None-Match': first.headers.get('etag') as string } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
  });

  it('answers 404 for a file without the HTML graph and for an unknown tenant', async () => {
    const absent = await call(server.url, '/api/pipeline/lab.jsononly/graph_html');
    expectProblem(absent, 404);
    expect(absent.body.detail).to.equal('the tenant file of "lab.jsononly" holds no pipeline artifact graph_html');
    expectProblem(await call(server.url, '/api/pipeline/lab.noartifacts/graph_html'), 404);
    expectProblem(await call(server.url, '/api/pipeline/no-such-tenant/graph_html'), 404);
  });

  it('answers 400 for a malformed tenant, 409 for an ambiguous one and 503 while the file is not usable', async () => {
    const bad = await call(server.url, '/api/pipeline/Bad%20Tenant/graph_html');
    expectProblem(bad, 400);
    expect(bad.body.errors[0]).to.include({ in: 'path', name: 'tenant' });
    expectProblem(await call(server.url, '/api/pipeline/rehaklinik/graph_html'), 409);
    expectProblem(await call(server.url, '/api/pipeline/lab.kaputt/graph_html'), 503);
  });
});
