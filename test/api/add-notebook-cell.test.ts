import { expect } from 'chai';
import { cellsOf, oversizedBody } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describeEachAppDatabase('POST /{tenant}/api/notebook/cells', (db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: await db.env() });
  });
  after(async () => server.close());
  const add = (tenant: string, json: unknown) => call(server.url, `/${tenant}/api/notebook/cells`, { method: 'POST', json });

  it('appends cells of every type in order with server-made id and timestamps (201)', async () => {
    const inputs = [
      { type: 'narrative', text: { en: 'October closed with 12 unbilled cases.' } },
      { type: 'view', view_id: '6f1c2b9e-8d4a-4e2f-9b1c-3a5d7e9f1b2c' },
      { type: 'view', entity: 'cost_centres', params: { filters: { active: true } } },
      { type: 'reference', ref: { kind: 'probe', id: 'probe_unbilled_cases' } },
      { type: 'discussion', title: 'Unbilled cases in October' },
      { type: 'action', text: 'Invoice the four confirmed cases', assignee: 'Lukas Meier', due: '2026-11-28' },
    ];
    let res;
    for (const cell of inputs) {
      res = await add('west.hopital-cantonal', { cell });
      expect(res.status, res.text).to.equal(201);
    }
    const cells = cellsOf(res!.body);
    expect(cells.map((c) => c.type)).to.deep.equal(inputs.map((c) => c.type));
    for (const cell of cells) {
      expect(cell.id).to.match(/^[0-9a-f-]{36}$/);
      expect(cell.created_at).to.equal(cell.updated_at);
      expect(cell.author).to.equal(null);
    }
    expect(cells[4]!.replies).to.deep.equal([]);
    expect(cells[5]).to.include({ status: 'open', assignee: 'Lukas Meier', due: '2026-11-28' });
    expect(res!.body.notebook.tenant_id).to.equal('west.hopital-cantonal');
    expect(res!.body.notebook.updated_at).to.equal(cells[5]!.created_at);
  });

  it('names the new cell in Location, where PUT and DELETE reach it', async () => {
    const res = await add('kantonsspital', { cell: { type: 'narrative', text: { en: 'Located' } } });
    expect(res.status).to.equal(201);
    const cell = cellsOf(res.body).at(-1)!;
    const location = res.headers.get('location');
    expect(location).to.equal(`/kantonsspital/api/notebook/cells/${cell.id}`);
    const changed = await call(server.url, location!, { method: 'PUT', json: { updates: { text: { en: 'Moved' } } } });
    expect(changed.status, changed.text).to.equal(200);
    expect((await call(server.url, location!, { method: 'DELETE' })).status).to.equal(200);
    expect(cellsOf((await call(server.url, '/kantonsspital/api/notebook')).body).map((c) => c.id)).not.to.include(cell.id);
  });

  it('keeps unknown members, ignores sent ids and replies, and takes the request author over the cell author', async () => {
    const res = await add('kantonsspital', {
      cell: { type: 'discussion', title: 'T', id: 'mine', replies: [{ author: 'x', text: { en: 'x' }, date: '2026-01-01' }], colour: 'amber', author: 'Cell Author' },
      author: 'Anna Muster',
    });
    expect(res.status).to.equal(201);
    const cell = cellsOf(res.body).at(-1)!;
    expect(cell).to.include({ colour: 'amber', author: 'Anna Muster', title: 'T' });
    expect(cell.id).not.to.equal('mine');
    expect(cell.replies).to.deep.equal([]);
    const own = cellsOf((await add('kantonsspital', { cell: { type: 'narrative', text: { de: 'Hallo' }, author: 'Cell Author' } })).body).at(-1)!;
    expect(own.author).to.equal('Cell Author');
  });

  it('keeps all 100 cells of 100 parallel additions in one process', async () => {
    const results = await Promise.all(Array.from({ length: 100 }, (_, seq) => add('west.rehaklinik', { cell: { type: 'action', text: `task ${seq}`, seq } })));
    expect(results.map((r) => r.status)).to.deep.equal(Array(100).fill(201));
    const cells = cellsOf((await call(server.url, '/west.rehaklinik/api/notebook')).body);
    expect(cells.map((c) => c.seq).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i));
  });

  it('answers 400 for a cell that breaks its schema or the limits, adding nothing', async () => {
    const before = (await call(server.url, '/ost.rehaklinik/api/notebook')).body.notebook.cells;
    const broken = [
      {},
      { cell: { type: 'poem', text: { en: 'x' } } },
      { cell: { type: 'narrative' } },
      { cell: { type: 'narrative', text: {} } },
      { cell: { type: 'narrative', text: { en: 'x'.repeat(20_001) } } },
      { cell: { type: 'view' } },
      { cell: { type: 'action', text: 'x', status: 'later' } },
      { cell: { type: 'discussion', title: 't'.repeat(201) } },
      { cell: { type: 'narrative', text: { en: 'x' }, ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`m${i}`, i])) } },
      { cell: { type: 'view', entity: 'cost_centres', params: { blob: 'x'.repeat(65_536) } } },
      { cell: { type: 'narrative', text: { en: 'x' } }, author: 'a'.repeat(201) },
    ];
    for (const body of broken) expectProblem(await add('ost.rehaklinik', body), 400);
    const size = await add('ost.rehaklinik', broken[9]);
    expect(size.body.errors[0]).to.include({ in: 'body', name: 'cell' });
    expect((await call(server.url, '/ost.rehaklinik/api/notebook')).body.notebook.cells).to.equal(before);
  });

  it('answers 404, 409, 413 and 415 problems', async () => {
    const cell = { type: 'narrative', text: { en: 'x' } };
    expectProblem(await add('nowhere', { cell }), 404);
    expectProblem(await add('rehaklinik', { cell }), 409);
    expectProblem(await call(server.url, '/kantonsspital/api/notebook/cells', { method: 'POST', body: oversizedBody(), headers: { 'content-type': 'application/json' } }), 413);
    expectProblem(await call(server.url, '/kantonsspital/api/notebook/cells', { method: 'POST', body: JSON.stringify({ cell }), headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('holds at most 500 cells: the ones past it are 400 and the notebook reads back whole', async () => {
    for (let batch = 0; batch < 49; batch += 1) {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => add('ost.rehaklinik', { cell: { type: 'action', text: `task ${batch * 10 + i}` } })));
      expect(results.map((r) => r.status)).to.deep.equal(Array(10).fill(201));
    }
    // 490 held: of 20 parallel additions exactly 10 fit
    const racing = await Promise.all(Array.from({ length: 20 }, (_, i) => add('ost.rehaklinik', { cell: { type: 'narrative', text: { en: `late ${i}` } } })));
    expect(racing.filter((r) => r.status === 201)).to.have.length(10);
    for (const refused of racing.filter((r) => r.status !== 201)) {
      expectProblem(refused, 400);
      expect(refused.body.errors).to.deep.equal([{ in: 'body', name: 'cell', message: 'the notebook holds 500 cells, the most it may; delete one first' }]);
    }
    const notebook = await call(server.url, '/ost.rehaklinik/api/notebook');
    const cells = cellsOf(notebook.body);
    expect(cells).to.have.length(500);
    expect(cells.filter((c) => c.type === 'narrative')).to.have.length(10);
    expectProblem(await add('ost.rehaklinik', { cell: { type: 'action', text: 'one more' } }), 400);
    expect(cellsOf((await call(server.url, '/ost.rehaklinik/api/notebook')).body)).to.deep.equal(cells);
  });
});
