import { expect } from 'chai';
import { UNKNOWN_ID, addNotebookCell, cellsOf } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describeEachAppDatabase('DELETE /{tenant}/api/notebook/cells/{cell_id}', (db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env() });
  });
  after(async () => server.close());
  const remove = (tenant: string, cellId: string) => call(server.url, `/${tenant}/api/notebook/cells/${cellId}`, { method: 'DELETE' });

  it('removes the cell, keeps the order of the others, and then answers 404 for it', async () => {
    const a = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'a' } });
    const b = await addNotebookCell(server.url, 'kantonsspital', { type: 'discussion', title: 'b' });
    const c = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'c' } });
    const res = await remove('ost.kantonsspital', b.id);
    expect(res.status).to.equal(200);
    expect(cellsOf(res.body).map((cell) => cell.id)).to.deep.equal([a.id, c.id]);
    const d = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'd' } });
    expect(cellsOf((await call(server.url, '/kantonsspital/api/notebook')).body).map((cell) => cell.id)).to.deep.equal([a.id, c.id, d.id]);
    expectProblem(await remove('kantonsspital', b.id), 404);
  });

  it('answers 404 for a cell of another tenant and leaves it alone', async () => {
    const other = await addNotebookCell(server.url, 'hopital-cantonal', { type: 'narrative', text: { en: 'x' } });
    expectProblem(await remove('kantonsspital', other.id), 404);
    expect(cellsOf((await call(server.url, '/hopital-cantonal/api/notebook')).body).map((cell) => cell.id)).to.include(other.id);
  });

  it('answers 400 for a malformed cell ID, 404 for an unknown tenant, 409 for an ambiguous slug', async () => {
    expectProblem(await remove('kantonsspital', 'not-a-uuid'), 400);
    expectProblem(await remove('nowhere', UNKNOWN_ID), 404);
    expectProblem(await remove('rehaklinik', UNKNOWN_ID), 409);
  });
});
