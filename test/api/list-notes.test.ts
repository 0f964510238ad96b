import { expect } from 'chai';
import { addNoteCell, createNote } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ManualClock } from '../helpers/clock.js';

describeEachAppDatabase('GET /{tenant}/api/notes', (db) => {
  const clock = new ManualClock();
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env(), now: clock.now });
  });
  after(async () => server.close());

  it('lists summaries with cell_count, most recently updated first, for a slug and its composite ID', async () => {
    clock.set(Date.parse('2026-03-01T10:00:00.000Z'));
    const first = await createNote(server.url, 'kantonsspital', 'First');
    clock.advance(1);
    const second = await createNote(server.url, 'kantonsspital', 'Second');
    clock.advance(1);
    await addNoteCell(server.url, 'kantonsspital', first.note_id, { type: 'narrative', text: { en: 'a' } });
    await addNoteCell(server.url, 'kantonsspital', first.note_id, { type: 'action', text: 'b' });
    await createNote(server.url, 'hopital-cantonal', 'Elsewhere');
    for (const tenant of ['kantonsspital', 'ost.kantonsspital']) {
      const res = await call(server.url, `/${tenant}/api/notes`);
      expect(res.status).to.equal(200);
      expect(res.body.notes.map((n: { title: string; cell_count: number }) => [n.title, n.cell_count])).to.deep.equal([
        ['First', 2],
        ['Second', 0],
      ]);
      expect(res.body.notes[0]).not.to.have.property('cells');
      expect(res.body.notes[0]).to.include({ note_id: first.note_id, created_at: '2026-03-01T10:00:00.000Z', updated_at: '2026-03-01T10:00:00.002Z' });
      expect(res.body.notes[1]).to.include({ note_id: second.note_id, tenant_id: 'ost.kantonsspital', updated_at: '2026-03-01T10:00:00.001Z' });
    }
  });

  it('answers 400 for a malformed tenant, 404 for an unknown one, 409 for an ambiguous slug', async () => {
    expectProblem(await call(server.url, '/Bad.Tenant.X/api/notes'), 400);
    expectProblem(await call(server.url, '/nowhere/api/notes'), 404);
    expectProblem(await call(server.url, '/rehaklinik/api/notes'), 409);
  });
});
