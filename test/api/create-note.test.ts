import { expect } from 'chai';
import { gitWorkspaces, oversizedBody } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describeEachAppDatabase('POST /{tenant}/api/notes', (db) => {
  let server: TestServer;
  let workspaces: ReturnType<typeof gitWorkspaces>;
  before(async () => {
    workspaces = gitWorkspaces('Notes Tester');
    server = await startTestServer({ env: { GIT_WORKSPACES_DIR: workspaces.dir, ...(await db.env()) } });
  });
  after(async () => {
    await server.close();
    workspaces.remove();
  });
  const create = (tenant: string, json: unknown) => call(server.url, `/${tenant}/api/notes`, { method: 'POST', json });

  it('creates an empty note whose author is the git user.name of the tenant work tree', async () => {
    const res = await create('kantonsspital', { title: 'October close review', tags: ['controlling', 'billing'] });
    expect(res.status, res.text).to.equal(200);
    const note = res.body.note;
    expect(note).to.include({ tenant_id: 'ost.kantonsspital', title: 'October close review', author: 'Notes Tester' });
    expect(note.tags).to.deep.equal(['controlling', 'billing']);
    expect(note.cells).to.deep.equal([]);
    expect(note.note_id).to.match(/^[0-9a-f-]{36}$/);
    expect(note.created_at).to.equal(note.updated_at);
    expect((await call(server.url, `/ost.kantonsspital/api/notes/${note.note_id}`)).body.note).to.deep.equal(note);
  });

  it('stores no tags when none are given', async () => {
    const res = await create('hopital-cantonal', { title: 'Untagged' });
    expect(res.status).to.equal(200);
    expect(res.body.note.tags).to.deep.equal([]);
  });

  it('answers 400 beyond the title and tag limits', async () => {
    for (const body of [{}, { title: '' }, { title: 't'.repeat(201) }, { title: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, { title: 'x', tags: ['t'.repeat(51)] }, { title: 'x', tags: [''] }]) {
      expectProblem(await create('kantonsspital', body), 400);
    }
  });

  it('answers 404, 409, 413 and 415 problems', async () => {
    expectProblem(await create('nowhere', { title: 'x' }), 404);
    expectProblem(await create('rehaklinik', { title: 'x' }), 409);
    expectProblem(await call(server.url, '/kantonsspital/api/notes', { method: 'POST', body: oversizedBody(), headers: { 'content-type': 'application/json' } }), 413);
    expectProblem(await call(server.url, '/kantonsspital/api/notes', { method: 'POST', body: '{"title":"x"}', headers: { 'content-type': 'text/plain' } }), 415);
  });
});
