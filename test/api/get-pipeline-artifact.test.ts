import Database from 'better-sqlite3';
import { expect } from 'chai';
import { call, expectProblem } from '../helpers/http.js';
import { KLS_COLUMNS, dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /api/pipeline/{tenant}/{artifact_key}', () => {
  let server: TestServer;
  let data: ReturnType<typeof dataDirWith>;
  before(async () => {
    data = dataDirWith({
      tenants: {
        'lab.noartifacts': {},
        'lab.badgraph': { pipeline_artifacts: { columns: KLS_COLUMNS.pipeline_artifacts, rows: [{ artifact_key: 'graph_json', content: '[1, 2]' }] } },
      },
      broken: ['lab.kaputt'],
    });
    server = await startTestServer({ dataDir: data.dir });
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  const stored = (key: string): string => {
    const db = new Database(data.klsFile('ost.kantonsspital'), { readonly: true });
    try {
      return (db.prepare('SELECT content FROM pipeline_artifacts WHERE artifact_key = ?').get(key) as { content: string }).content;
    } finally {
      db.close();
    }
  };

  it('sends graph_json as the stored JSON object, cached for an hour, with a strict CSP', async () => {
    const res = await call(server.url, '/api/pipeline/kantonsspital/graph_json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json');
    expect(res.body).to.deep.equal(JSON.parse(stored('graph_json')));
    expect(res.body.nodes).to.be.an('array').that.is.not.empty;
    expect(res.headers.get('cache-control')).to.equal('public, max-age=3600');
    expect(res.headers.get('etag')).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers.get('content-security-policy')).to.equal("default-src 'none'; sandbox");
  });

  it('sends graph_html as text/html in a sandbox that can fetch nothing', async () => {
    const res = await call(server.url, '/api/pipeline/ost.kantonsspital/graph_html');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.text).to.equal(stored('graph_html'));
    const csp = res.headers.get('content-security-policy') as string;
    expect(csp).to.include("default-src 'none'");
    expect(csp).to.match(/sandbox allow-scripts$/);
    expect(csp).not.to.include('allow-same-origin');
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const first = await call(server.url, '/api/pipeline/kantonsspital/graph_html');
    const again = await call(server.url, '/api/pipeline/kantonsspital/graph_html', { headers: { 'If-None-Match': first.headers.get('etag') as string } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
  });

  it('answers 404 when the file has no such artifact, no table, or a graph_json that is not an object', async () => {
    expectProblem(await call(server.url, '/api/pipeline/lab.noartifacts/graph_json'), 404);
    expectProblem(await call(server.url, '/api/pipeline/lab.badgraph/graph_json'), 404);
    expectProblem(await call(server.url, '/api/pipeline/lab.badgraph/graph_html'), 404);
    expectProblem(await call(server.url, '/api/pipeline/no-such-tenant/graph_json'), 404);
  });

  it('answers 400, 409 and 503 problems', async () => {
    expectProblem(await call(server.url, '/api/pipeline/kantonsspital/graph_svg'), 400);
    expectProblem(await call(server.url, '/api/pipeline/rehaklinik/graph_json'), 409);
    expectProblem(await call(server.url, '/api/pipeline/lab.kaputt/graph_json'), 503);
  });
});
