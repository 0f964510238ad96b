import { expect } from 'chai';
import { UNKNOWN_ID, addNotebookCell, cellsOf, oversizedBody } from '../helpers/collaboration.js';
import { ManualClock } from '../helpers/clock.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describeEachAppDatabase('POST /{tenant}/api/notebook/cells/{cell_id}/discussion', (db) => {
  const clock = new ManualClock();
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env(), now: clock.now });
  });
  after(async () => server.close());
  const reply = (tenant: string, cellId: string, json: unknown) => call(server.url, `/${tenant}/api/notebook/cells/${cellId}/discussion`, { method: 'POST', json });

  it('appends replies in order (201); date defaults to today (UTC)', async () => {
    // the last millisecond of a UTC day: the default date is that day's wherever the test runs
    clock.set(Date.parse('2026-03-01T23:59:59.999Z'));
    const discussion = await addNotebookCell(server.url, 'kantonsspital', { type: 'discussion', title: 'Unbilled cases' }, 'Anna Muster');
    const first = await reply('kantonsspital', discussion.id, { author: 'Lukas Meier', text: { en: 'Four are invoiced this week.' }, date: '2026-11-21' });
    expect(first.status, first.text).to.equal(201);
    const second = await reply('ost.kantonsspital', discussion.id, { author: 'Anna Muster', text: { de: 'Danke' } });
    expect(second.status).to.equal(201);
    const cell = cellsOf(second.body).find((c) => c.id === discussion.id)!;
    expect(cell.replies).to.deep.equal([
      { author: 'Lukas Meier', text: { en: 'Four are invoiced this week.' }, date: '2026-11-21' },
      { author: 'Anna Muster', text: { de: 'Danke' }, date: '2026-03-01' },
    ]);
    expect(cell).to.include({ author: 'Anna Muster', title: 'Unbilled cases' });
  });

  it('keeps all 100 replies of 100 parallel replies in one process', async () => {
    const discussion = await addNotebookCell(server.url, 'hopital-cantonal', { type: 'discussion', title: 'Parallel' });
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => reply('hopital-cantonal', discussion.id, { author: 'w', text: { en: `r${i}` } })));
    expect(results.map((r) => r.status)).to.deep.equal(Array(100).fill(201));
    const cell = cellsOf((await call(server.url, '/hopital-cantonal/api/notebook')).body).find((c) => c.id === discussion.id)!;
    expect(new Set(cell.replies.map((r: { text: { en: string } }) => r.text.en)).size).to.equal(100);
  });

  it('answers 404 for an unknown cell and for a cell that is not a discussion', async () => {
    const narrative = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'x' } });
    expectProblem(await reply('kantonsspital', UNKNOWN_ID, { author: 'A', text: { en: 'x' } }), 404);
    const notDiscussion = await reply('kantonsspital', narrative.id, { author: 'A', text: { en: 'x' } });
    expectProblem(notDiscussion, 404);
    expect(notDiscussion.body.detail).to.match(/not a discussion/);
  });

  it('answers 400 for a reply without author or text, with an empty text or a bad date', async () => {
    const discussion = await addNotebookCell(server.url, 'kantonsspital', { type: 'discussion', title: 'Bad replies' });
    for (const body of [{ text: { en: 'x' } }, { author: 'A' }, { author: 'A', text: {} }, { author: 'A', text: { en: 'x' }, date: '21.11.2026' }, { author: '', text: { en: 'x' } }]) {
      expectProblem(await reply('kantonsspital', discussion.id, body), 400);
    }
    expect(cellsOf((await call(server.url, '/kantonsspital/api/notebook')).body).find((c) => c.id === discussion.id)!.replies).to.deep.equal([]);
  });

  it('answers 404 for an unknown tenant, 409, 413 and 415', async () => {
    const body = { author: 'A', text: { en: 'x' } };
    expectProblem(await reply('nowhere', UNKNOWN_ID, body), 404);
    expectProblem(await reply('rehaklinik', UNKNOWN_ID, body), 409);
    const url = `/kantonsspital/api/notebook/cells/${UNKNOWN_ID}/discussion`;
    expectProblem(await call(server.url, url, { method: 'POST', body: oversizedBody(), headers: { 'content-type': 'application/json' } }), 413);
    expectProblem(await call(server.url, url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('holds at most 500 replies per discussion: the 501st is 400 and nothing changes', async () => {
    const discussion = await addNotebookCell(server.url, 'west.hopital-cantonal', { type: 'discussion', title: 'Long thread' });
    for (let batch = 0; batch < 10; batch += 1) {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => reply('west.hopital-cantonal', discussion.id, { author: 'w', text: { en: `r${batch * 50 + i}` } })));
      expect(results.map((r) => r.status)).to.deep.equal(Array(50).fill(201));
    }
    const before = cellsOf((await call(server.url, '/west.hopital-cantonal/api/notebook')).body);
    const refused = await reply('west.hopital-cantonal', discussion.id, { author: 'w', text: { en: 'one more' } });
    expectProblem(refused, 400);
    expect(refused.body.errors).to.deep.equal([{ in: 'body', name: 'text', message: 'the discussion holds 500 replies, the most it may' }]);
    const after = cellsOf((await call(server.url, '/west.hopital-cantonal/api/notebook')).body);
    expect(after).to.deep.equal(before);
    expect(after.find((c) => c.id === discussion.id)!.replies).to.have.length(500);
  });
});
