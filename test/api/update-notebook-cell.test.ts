import { expect } from 'chai';
import { UNKNOWN_ID, addNotebookCell, cellsOf, oversizedBody } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ManualClock } from '../helpers/clock.js';

describeEachAppDatabase('PUT /{tenant}/api/notebook/cells/{cell_id}', (db) => {
  const clock = new ManualClock();
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env(), now: clock.now });
  });
  after(async () => server.close());
  const put = (tenant: string, cellId: string, json: unknown) => call(server.url, `/${tenant}/api/notebook/cells/${cellId}`, { method: 'PUT', json });

  it('merges updates into the cell, keeps id, type and created_at, sets updated_at and the author', async () => {
    clock.set(Date.parse('2026-03-01T10:00:00.000Z'));
    const cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'action', text: 'Invoice', assignee: 'Lukas Meier' }, 'Anna Muster');
    clock.advance(1);
    const res = await put('ost.kantonsspital', cell.id, { updates: { status: 'done', id: 'x', type: 'narrative', created_at: '2000-01-01T00:00:00.000Z', note: 'paid' }, author: 'Lukas Meier' });
    expect(res.status, res.text).to.equal(200);
    const updated = cellsOf(res.body).find((c) => c.id === cell.id)!;
    expect(updated).to.include({
      type: 'action',
      text: 'Invoice',
      status: 'done',
      assignee: 'Lukas Meier',
      note: 'paid',
      author: 'Lukas Meier',
      created_at: '2026-03-01T10:00:00.000Z',
      updated_at: '2026-03-01T10:00:00.001Z',
    });
    expect(res.body.notebook.updated_at).to.equal('2026-03-01T10:00:00.001Z');
  });

  it('answers 400 and changes nothing when the merged cell breaks its schema', async () => {
    const cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'before' } });
    const res = await put('kantonsspital', cell.id, { updates: { text: 'no longer localized' } });
    expectProblem(res, 400);
    expect(res.body.errors[0]).to.include({ in: 'body', name: 'updates.text' });
    expectProblem(await put('kantonsspital', cell.id, { updates: { blob: 'x'.repeat(65_536) } }), 400);
    expectProblem(await put('kantonsspital', cell.id, { updates: {} }), 400);
    const stored = cellsOf((await call(server.url, '/kantonsspital/api/notebook')).body).find((c) => c.id === cell.id)!;
    expect(stored).to.deep.equal(cell);
  });

  it('lists every issue of a merged cell in its 400 answer', async () => {
    const cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'action', text: 'do' });
    const res = await put('kantonsspital', cell.id, { updates: { status: 'later', due: '2026-02-30' } });
    expectProblem(res, 400);
    expect(res.body.errors.map((issue: { name: string }) => issue.name).sort()).to.deep.equal(['updates.due', 'updates.status']);
    // the status names the values it may take
    expect(res.body.errors.find((issue: { name: string }) => issue.name === 'updates.status').message).to.equal('must be one of: open, done');
  });

  it('names at most ten issues in the detail of a 400, however many errors[] lists', async () => {
    const cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'discussion', title: 'x' });
    const replies = Array.from({ length: 500 }, () => ({ text: 1, author: 2, date: 3, extra: 4 }));
    const res = await put('kantonsspital', cell.id, { updates: { replies } });
    expectProblem(res, 400);
    expect(res.body.errors).to.have.length(2000);
    expect(res.body.detail.split('; ')).to.have.length(11);
    expect(res.body.detail).to.match(/; and 1990 more in errors\[\]$/);
  });

  it('answers 404 for an unknown cell and for a cell of another tenant', async () => {
    const other = await addNotebookCell(server.url, 'hopital-cantonal', { type: 'narrative', text: { en: 'x' } });
    const unknown = await put('kantonsspital', UNKNOWN_ID, { updates: { text: { en: 'x' } } });
    expectProblem(unknown, 404);
    expect(unknown.body.detail).to.include(UNKNOWN_ID);
    expectProblem(await put('kantonsspital', other.id, { updates: { text: { en: 'x' } } }), 404);
  });

  it('answers 400 for a malformed cell ID, 404 unknown tenant, 409, 413 and 415', async () => {
    expectProblem(await put('kantonsspital', 'not-a-uuid', { updates: { a: 1 } }), 400);
    expectProblem(await put('nowhere', UNKNOWN_ID, { updates: { a: 1 } }), 404);
    expectProblem(await put('rehaklinik', UNKNOWN_ID, { updates: { a: 1 } }), 409);
    const url = `/kantonsspital/api/notebook/cells/${UNKNOWN_ID}`;
    expectProblem(await call(server.url, url, { method: 'PUT', body: oversizedBody(), headers: { 'content-type': 'application/json' } }), 413);
    expectProblem(await call(server.url, url, { method: 'PUT', body: '{"updates":{"a":1}}', headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('answers 400 for replies beyond 500 in updates, and changes nothing', async () => {
    const cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'discussion', title: 'Imported thread' });
    const replies = Array.from({ length: 501 }, (_, i) => ({ author: 'w', text: { en: `r${i}` }, date: '2026-11-01' }));
    const res = await put('kantonsspital', cell.id, { updates: { replies } });
    expectProblem(res, 400);
    expect(res.body.errors).to.deep.include({ in: 'body', name: 'updates.replies', message: 'holds 501 replies; a discussion holds at most 500' });
    const stored = cellsOf((await call(server.url, '/kantonsspital/api/notebook')).body).find((c) => c.id === cell.id)!;
    expect(stored.replies).to.deep.equal([]);
    expect((await put('kantonsspital', cell.id, { updates: { replies: replies.slice(0, 500) } })).status).to.equal(200);
  });
});
