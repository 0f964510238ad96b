import { expect } from 'chai';
import { UNKNOWN_ID, addNoteCell, createNote } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describeEachAppDatabase('GET /{tenant}/api/notes/{note_id}', (db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env() });
  });
  after(async () => server.close());

  it('answers the note with its cells in order (an array, not a string)', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const first = await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'reference', ref: { kind: 'probe', id: 'probe_unbilled_cases' }, author: 'Anna Muster' });
    const second = await addNoteCell(server.url, 'ost.kantonsspital', note.note_id, { type: 'action', text: 'Invoice', due: '2026-11-28' });
    const res = await call(server.url, `/kantonsspital/api/notes/${note.note_id}`);
    expect(res.status).to.equal(200);
    expect(res.body.note.cells.map((c: { id: string }) => c.id)).to.deep.equal([first, second]);
    expect(res.body.note.cells[0]).to.include({ type: 'reference', author: 'Anna Muster' });
    expect(res.body.note.cells[1]).to.include({ status: 'open', author: null });
    expect(res.body.note.updated_at >= note.updated_at).to.equal(true);
  });

  it('answers 404 for an unknown note and for a note of another tenant', async () => {
    const other = await createNote(server.url, 'hopital-cantonal');
    const unknown = await call(server.url, `/kantonsspital/api/notes/${UNKNOWN_ID}`);
    expectProblem(unknown, 404);
    expect(unknown.body.detail).to.include(UNKNOWN_ID);
    expectProblem(await call(server.url, `/kantonsspital/api/notes/${other.note_id}`), 404);
  });

  it('answers 400 for a malformed note ID, 404 for an unknown tenant, 409 for an ambiguous slug', async () => {
    expectProblem(await call(server.url, '/kantonsspital/api/notes/not-a-uuid'), 400);
    expectProblem(await call(server.url, `/nowhere/api/notes/${UNKNOWN_ID}`), 404);
    expectProblem(await call(server.url, `/rehaklinik/api/notes/${UNKNOWN_ID}`), 409);
  });
});
