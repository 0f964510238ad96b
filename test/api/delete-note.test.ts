import { expect } from 'chai';
import { CellRow } from '../../src/appdb/cell.entity.js';
import { UNKNOWN_ID, addNoteCell, createNote } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describeEachAppDatabase('DELETE /{tenant}/api/notes/{note_id}', (db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env() });
  });
  after(async () => server.close());
  const remove = (tenant: string, noteId: string, cellId?: string) =>
    call(server.url, `/${tenant}/api/notes/${noteId}${cellId === undefined ? '' : `?cell_id=${cellId}`}`, { method: 'DELETE' });

  it('with cell_id deletes only that cell (ok:true), then ok:false for it', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const a = await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'narrative', text: { en: 'a' } });
    const b = await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'narrative', text: { en: 'b' } });
    const res = await remove('ost.kantonsspital', note.note_id, a);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ ok: true });
    const stored = (await call(server.url, `/kantonsspital/api/notes/${note.note_id}`)).body.note;
    expect(stored.cells.map((c: { id: string }) => c.id)).to.deep.equal([b]);
    expect((await remove('kantonsspital', note.note_id, a)).body).to.deep.equal({ ok: false });
  });

  it('without cell_id deletes the whole note with its cells (ok:true), then ok:false', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'narrative', text: { en: 'a' } });
    expect((await remove('kantonsspital', note.note_id)).body).to.deep.equal({ ok: true });
    const orphans = await server.deps.appDb.dataSource.getRepository(CellRow).countBy({ ownerId: note.note_id });
    expect(orphans, 'cells of the deleted note left behind').to.equal(0);
    expectProblem(await call(server.url, `/kantonsspital/api/notes/${note.note_id}`), 404);
    const listed = (await call(server.url, '/kantonsspital/api/notes')).body.notes.map((n: { note_id: string }) => n.note_id);
    expect(listed).not.to.include(note.note_id);
    expect((await remove('kantonsspital', note.note_id)).body).to.deep.equal({ ok: false });
  });

  it('answers ok:false for a note of another tenant and leaves it', async () => {
    const other = await createNote(server.url, 'hopital-cantonal');
    expect((await remove('kantonsspital', other.note_id)).body).to.deep.equal({ ok: false });
    expect((await call(server.url, `/hopital-cantonal/api/notes/${other.note_id}`)).status).to.equal(200);
  });

  it('answers 400 for a malformed ID, 404 for an unknown tenant, 409 for an ambiguous slug', async () => {
    expectProblem(await remove('kantonsspital', 'not-a-uuid'), 400);
    expectProblem(await remove('kantonsspital', UNKNOWN_ID, 'bad'), 400);
    expectProblem(await remove('nowhere', UNKNOWN_ID), 404);
    expectProblem(await remove('rehaklinik', UNKNOWN_ID), 409);
  });
});
