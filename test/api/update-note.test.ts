import { expect } from 'chai';
import { UNKNOWN_ID, addNoteCell, createNote, oversizedBody } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ManualClock } from '../helpers/clock.js';

describeEachAppDatabase('PUT /{tenant}/api/notes/{note_id}', (db) => {
  const clock = new ManualClock();
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env(), now: clock.now });
  });
  after(async () => server.close());
  const put = (tenant: string, noteId: string, json: unknown) => call(server.url, `/${tenant}/api/notes/${noteId}`, { method: 'PUT', json });
  const noteOf = async (noteId: string) => (await call(server.url, `/kantonsspital/api/notes/${noteId}`)).body.note;

  it('replaces title and tags (ok:true) and moves updated_at', async () => {
    clock.set(Date.parse('2026-03-01T10:00:00.000Z'));
    const note = await createNote(server.url, 'kantonsspital', 'Draft', ['a']);
    clock.advance(1);
    const res = await put('ost.kantonsspital', note.note_id, { title: 'Final', tags: ['a', 'done'] });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ ok: true });
    const stored = await noteOf(note.note_id);
    expect(stored).to.include({ title: 'Final', created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.001Z' });
    expect(stored.tags).to.deep.equal(['a', 'done']);
    await put('kantonsspital', note.note_id, { tags: [] });
    expect(await noteOf(note.note_id)).to.deep.include({ title: 'Final', tags: [] });
  });

  it('merges updates into one cell (ok:true)', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const cellId = await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'action', text: 'Invoice' });
    expect((await put('kantonsspital', note.note_id, { cell_id: cellId, updates: { status: 'done', type: 'narrative' } })).body).to.deep.equal({ ok: true });
    expect((await noteOf(note.note_id)).cells[0]).to.include({ type: 'action', status: 'done', text: 'Invoice' });
  });

  it('answers ok:false for an unknown note or cell', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    expect((await put('kantonsspital', UNKNOWN_ID, { title: 'x' })).body).to.deep.equal({ ok: false });
    expect((await put('kantonsspital', UNKNOWN_ID, { cell_id: UNKNOWN_ID, updates: { a: 1 } })).body).to.deep.equal({ ok: false });
    expect((await put('kantonsspital', note.note_id, { cell_id: UNKNOWN_ID, updates: { a: 1 } })).body).to.deep.equal({ ok: false });
  });

  it('answers 400 for mixed or incomplete bodies and for a merged cell that breaks its schema', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const cellId = await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'action', text: 'Invoice' });
    for (const body of [{}, { cell_id: cellId }, { updates: { a: 1 } }, { cell_id: cellId, updates: { a: 1 }, title: 'x' }, { title: 'x', updates: { a: 1 } }, { title: '' }, { tags: ['t'.repeat(51)] }]) {
      expectProblem(await put('kantonsspital', note.note_id, body), 400);
    }
    const invalid = await put('kantonsspital', note.note_id, { cell_id: cellId, updates: { status: 'later' } });
    expectProblem(invalid, 400);
    expect(invalid.body.errors[0]).to.include({ name: 'updates.status' });
    expect((await noteOf(note.note_id)).cells[0].status).to.equal('open');
  });

  it('answers 404 for an unknown tenant, 409, 413 and 415', async () => {
    expectProblem(await put('nowhere', UNKNOWN_ID, { title: 'x' }), 404);
    expectProblem(await put('rehaklinik', UNKNOWN_ID, { title: 'x' }), 409);
    const url = `/kantonsspital/api/notes/${UNKNOWN_ID}`;
    expectProblem(await call(server.url, url, { method: 'PUT', body: oversizedBody(), headers: { 'content-type': 'application/json' } }), 413);
    expectProblem(await call(server.url, url, { method: 'PUT', body: '{"title":"x"}', headers: { 'content-type': 'text/plain' } }), 415);
  });
});
