import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { addNotebookCell, cellsOf } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { demoTemplateDir, startTestServer, tempDir } from '../helpers/server.js';

describeEachAppDatabase('GET /{tenant}/api/notebook', (db) => {
  let data: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  beforeEach(async () => {
    data = tempDir('ads-notebook-');
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    env = await db.env();
  });
  afterEach(() => data.remove());

  it('creates an empty notebook on first access, the same one for a slug and its composite ID', async () => {
    const server = await startTestServer({ dataDir: data.dir, env });
    try {
      const first = await call(server.url, '/kantonsspital/api/notebook');
      expect(first.status).to.equal(200);
      expect(first.body.notebook).to.include({ tenant_id: 'ost.kantonsspital', cells: '[]' });
      expect(first.body.notebook.created_at).to.equal(first.body.notebook.updated_at);
      const again = await call(server.url, '/ost.kantonsspital/api/notebook');
      expect(again.body).to.deep.equal(first.body);
    } finally {
      await server.close();
    }
  });

  it('keeps the notebook across a restart and a replaced tenant file', async () => {
    let server = await startTestServer({ dataDir: data.dir, env });
    let cell: Record<string, any>;
    try {
      cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'kept' } });
    } finally {
      await server.close();
    }
    server = await startTestServer({ dataDir: data.dir, env });
    try {
      expect(cellsOf((await call(server.url, '/kantonsspital/api/notebook')).body).map((c) => c.id)).to.deep.equal([cell.id]);
      const kls = path.join(data.dir, 'kls', 'ost', 'kantonsspital', 'kls.sqlite');
      const copy = `${kls}.new`;
      fs.copyFileSync(kls, copy);
      fs.utimesSync(copy, new Date('2026-11-02T08:00:00Z'), new Date('2026-11-02T08:00:00Z'));
      fs.renameSync(copy, kls);
      expect((await call(server.url, '/api/db-status/kantonsspital')).body.generation).to.equal(2);
      expect(cellsOf((await call(server.url, '/kantonsspital/api/notebook')).body).map((c) => c.id)).to.deep.equal([cell.id]);
    } finally {
      await server.close();
    }
  });

  it('serves the notebook of a tenant whose file cannot be opened (no 503)', async () => {
    fs.mkdirSync(path.join(data.dir, 'kls', 'ost', 'kaputt'), { recursive: true });
    fs.writeFileSync(path.join(data.dir, 'kls', 'ost', 'kaputt', 'kls.sqlite'), 'not a database\n'.repeat(100));
    const server = await startTestServer({ dataDir: data.dir, env });
    try {
      const res = await call(server.url, '/ost.kaputt/api/notebook');
      expect(res.status).to.equal(200);
      expect(res.body.notebook.tenant_id).to.equal('ost.kaputt');
    } finally {
      await server.close();
    }
  });

  it('answers 400 for a malformed tenant, 404 for an unknown one, 409 for an ambiguous slug', async () => {
    const server = await startTestServer({ dataDir: data.dir, env });
    try {
      expectProblem(await call(server.url, '/Bad.Tenant.X/api/notebook'), 400);
      expectProblem(await call(server.url, '/nowhere/api/notebook'), 404);
      expectProblem(await call(server.url, '/rehaklinik/api/notebook'), 409);
    } finally {
      await server.close();
    }
  });
});
