import { expect } from 'chai';
import { UNKNOWN_ID, addNoteCell, createNote, gitWorkspaces, oversizedBody } from '../helpers/collaboration.js';
import { ManualClock } from '../helpers/clock.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describeEachAppDatabase('POST /{tenant}/api/notes/{note_id}', (db) => {
  const clock = new ManualClock();
  let server: TestServer;
  let workspaces: ReturnType<typeof gitWorkspaces>;
  before(async () => {
    workspaces = gitWorkspaces('Reply Default');
    server = await startTestServer({ env: { GIT_WORKSPACES_DIR: workspaces.dir, ...(await db.env()) }, now: clock.now });
  });
  after(async () => {
    await server.close();
    workspaces.remove();
  });
  const post = (tenant: string, noteId: string, json: unknown) => call(server.url, `/${tenant}/api/notes/${noteId}`, { method: 'POST', json });
  const cellsOfNote = async (noteId: string) => (await call(server.url, `/kantonsspital/api/notes/${noteId}`)).body.note.cells as Array<Record<string, any>>;

  it('adds a cell and answers its ID; the note is updated', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const res = await post('kantonsspital', note.note_id, { cell: { type: 'action', text: 'Invoice', status: 'open', assignee: 'Lukas Meier', extra: true } });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(['cell_id']);
    const cells = await cellsOfNote(note.note_id);
    expect(cells).to.have.length(1);
    expect(cells[0]).to.include({ id: res.body.cell_id, type: 'action', assignee: 'Lukas Meier', extra: true });
  });

  it('adds a reply to a discussion cell (ok:true), author from git identity and date today by default', async () => {
    // the last millisecond of a UTC day: the default date is that day's wherever the test runs
    clock.set(Date.parse('2026-03-01T23:59:59.999Z'));
    const note = await createNote(server.url, 'kantonsspital');
    const discussion = await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'discussion', title: 'Open points' });
    const res = await post('ost.kantonsspital', note.note_id, { cell_id: discussion, reply: { text: { en: 'Agreed.' } } });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ ok: true });
    await post('kantonsspital', note.note_id, { cell_id: discussion, reply: { text: { fr: 'Oui' }, author: 'Lukas Meier', date: '2026-11-21' } });
    expect((await cellsOfNote(note.note_id))[0]!.replies).to.deep.equal([
      { author: 'Reply Default', text: { en: 'Agreed.' }, date: '2026-03-01' },
      { author: 'Lukas Meier', text: { fr: 'Oui' }, date: '2026-11-21' },
    ]);
  });

  it('keeps all 50 of 50 parallel replies to one discussion of a note', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const discussion = await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'discussion', title: 'Parallel' });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => post('kantonsspital', note.note_id, { cell_id: discussion, reply: { text: { en: `r${i}` }, author: 'w' } })));
    expect(results.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
    expect((await cellsOfNote(note.note_id))[0]!.replies).to.have.length(50);
  });

  it('answers 400 for neither cell nor reply, both, a reply without cell_id, or cell_id alone', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const cell = { type: 'narrative', text: { en: 'x' } };
    for (const body of [{}, { cell, reply: { text: { en: 'x' } }, cell_id: UNKNOWN_ID }, { reply: { text: { en: 'x' } } }, { cell_id: UNKNOWN_ID }, { cell, cell_id: UNKNOWN_ID }, { cell: { type: 'narrative' } }]) {
      expectProblem(await post('kantonsspital', note.note_id, body), 400);
    }
    expect(await cellsOfNote(note.note_id)).to.deep.equal([]);
  });

  it('answers 404 for an unknown note, an unknown cell and a cell that is not a discussion', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const narrative = await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'narrative', text: { en: 'x' } });
    expectProblem(await post('kantonsspital', UNKNOWN_ID, { cell: { type: 'narrative', text: { en: 'x' } } }), 404);
    expectProblem(await post('kantonsspital', UNKNOWN_ID, { cell_id: narrative, reply: { text: { en: 'x' } } }), 404);
    expectProblem(await post('kantonsspital', note.note_id, { cell_id: UNKNOWN_ID, reply: { text: { en: 'x' } } }), 404);
    expectProblem(await post('kantonsspital', note.note_id, { cell_id: narrative, reply: { text: { en: 'x' } } }), 404);
  });

  it('answers 404 for an unknown tenant, 409, 413 and 415', async () => {
    const body = { cell: { type: 'narrative', text: { en: 'x' } } };
    expectProblem(await post('nowhere', UNKNOWN_ID, body), 404);
    expectProblem(await post('rehaklinik', UNKNOWN_ID, body), 409);
    const url = `/kantonsspital/api/notes/${UNKNOWN_ID}`;
    expectProblem(await call(server.url, url, { method: 'POST', body: oversizedBody(), headers: { 'content-type': 'application/json' } }), 413);
    expectProblem(await call(server.url, url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('holds at most 500 cells per note: the 501st is 400 and the note reads back whole', async () => {
    const note = await createNote(server.url, 'kantonsspital', 'Full note');
    for (let batch = 0; batch < 10; batch += 1) {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => post('kantonsspital', note.note_id, { cell: { type: 'action', text: `t${batch * 50 + i}` } })));
      expect(results.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
    }
    const before = await cellsOfNote(note.note_id);
    const refused = await post('kantonsspital', note.note_id, { cell: { type: 'action', text: 'one more' } });
    expectProblem(refused, 400);
    expect(refused.body.errors[0].message).to.equal('the note holds 500 cells, the most it may; delete one first');
    expect(await cellsOfNote(note.note_id)).to.deep.equal(before);
    expect(before).to.have.length(500);
  });
});
