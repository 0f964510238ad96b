import { expect } from 'chai';
import fs from 'node:fs';
import { addNotebookCell, addNoteCell, cellsOf, createNote, createView } from '../helpers/collaboration.js';
import { call, expectProblem } from '../helpers/http.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const STALE = '"stale-tag"';
const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit & { json: unknown } => ({ method, json: body, headers });

// Revalidation (If-None-Match → 304) of what a UI polls, and optimistic locking (If-Match → 412) of its writes.
describeEachAppDatabase('conditional requests on notebooks, notes and saved views', (db) => {
  let data: ReturnType<typeof tempDir>;
  let server: TestServer;
  beforeEach(async () => {
    data = tempDir('ads-conditional-');
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    server = await startTestServer({ dataDir: data.dir, env: await db.env() });
  });
  afterEach(async () => {
    await server.close();
    data.remove();
  });

  const notebook = () => call(server.url, '/kantonsspital/api/notebook', { headers: { 'accept-encoding': 'identity' } });
  const revalidate = (path: string, etag: string) => call(server.url, path, { headers: { 'if-none-match': etag, 'accept-encoding': 'identity' } });

  it('answers a notebook read twice with 304 the second time, and 200 with a new tag after a change', async () => {
    const first = await notebook();
    expect(first.status).to.equal(200);
    const etag = first.headers.get('etag')!;
    expect(etag).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).to.equal('private, no-cache');
    const second = await revalidate('/kantonsspital/api/notebook', etag);
    expect(second.status).to.equal(304);
    expect(second.text).to.equal('');
    expect(second.headers.get('etag')).to.equal(etag);
    // the composite ID reaches the same notebook, in the same state
    expect((await revalidate('/ost.kantonsspital/api/notebook', etag)).status).to.equal(304);
    await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'changed' } });
    const third = await revalidate('/kantonsspital/api/notebook', etag);
    expect(third.status).to.equal(200);
    expect(third.headers.get('etag')).to.not.equal(etag);
    expect(cellsOf(third.body)).to.have.length(1);
  });

  it('matches If-None-Match in weak form, in a list, as `*` and in the compressed forms of the tag', async () => {
    const etag = (await notebook()).headers.get('etag')!;
    const gzipForm = `${etag.slice(0, -1)}-gzip"`;
    for (const header of [`W/${etag}`, `"other", ${etag}`, '*', gzipForm]) {
      const res = await revalidate('/kantonsspital/api/notebook', header);
      expect(res.status, header).to.equal(304);
    }
    expect((await revalidate('/kantonsspital/api/notebook', gzipForm)).headers.get('etag')).to.equal(gzipForm);
    expect((await revalidate('/kantonsspital/api/notebook', '"other"')).status).to.equal(200);
    expect((await revalidate('/kantonsspital/api/notebook', 'not-a-tag')).status).to.equal(200);
  });

  it('revalidates the notes list, one note, the views list, the signal list and one definition', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const view = await createView(server.url, 'kantonsspital');
    const reads = [
      '/kantonsspital/api/notes',
      `/kantonsspital/api/notes/${note.note_id}`,
      '/api/views?tenant=kantonsspital',
      '/api/probe-builder/list?tenant=kantonsspital',
      '/api/probe-builder/load?tenant=kantonsspital&probe_id=probe_unbilled_cases',
    ];
    const tags: Record<string, string> = {};
    for (const path of reads) {
      const res = await call(server.url, path);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('cache-control'), path).to.equal('private, no-cache');
      tags[path] = res.headers.get('etag')!;
      expect(tags[path], path).to.match(/^"[A-Za-z0-9_-]+"$/);
      expect((await revalidate(path, tags[path])).status, path).to.equal(304);
    }
    // a cell added to the note changes the note and the list (cell_count); a renamed view changes the views list
    await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'narrative', text: { en: 'x' } });
    expect((await revalidate('/kantonsspital/api/notes', tags['/kantonsspital/api/notes']!)).status).to.equal(200);
    expect((await revalidate(`/kantonsspital/api/notes/${note.note_id}`, tags[`/kantonsspital/api/notes/${note.note_id}`]!)).status).to.equal(200);
    const renamed = await call(server.url, '/api/views', json('PUT', { tenant: 'kantonsspital', view_id: view.view_id, name: 'Renamed' }));
    expect(renamed.body).to.deep.equal({ ok: true });
    expect((await revalidate('/api/views?tenant=kantonsspital', tags['/api/views?tenant=kantonsspital']!)).status).to.equal(200);
    // a deleted note changes the list
    const listTag = (await call(server.url, '/kantonsspital/api/notes')).headers.get('etag')!;
    await call(server.url, `/kantonsspital/api/notes/${note.note_id}`, { method: 'DELETE' });
    expect((await revalidate('/kantonsspital/api/notes', listTag)).status).to.equal(200);
  });

  it('refuses every notebook write with a stale If-Match (412, current tag named) and writes nothing', async () => {
    const discussion = await addNotebookCell(server.url, 'kantonsspital', { type: 'discussion', title: 'Unbilled cases' });
    const before = await notebook();
    const current = before.headers.get('etag')!;
    const writes: Array<[string, RequestInit & { json?: unknown }]> = [
      ['/kantonsspital/api/notebook/cells', json('POST', { cell: { type: 'narrative', text: { en: 'x' } } }, { 'if-match': STALE })],
      [`/kantonsspital/api/notebook/cells/${discussion.id}`, json('PUT', { updates: { title: 'Changed' } }, { 'if-match': STALE })],
      [`/kantonsspital/api/notebook/cells/${discussion.id}`, { method: 'DELETE', headers: { 'if-match': STALE } }],
      [`/kantonsspital/api/notebook/cells/${discussion.id}/discussion`, json('POST', { author: 'Lukas', text: { en: 'reply' } }, { 'if-match': STALE })],
      // a weak tag never matches If-Match (strong comparison)
      [`/kantonsspital/api/notebook/cells/${discussion.id}`, json('PUT', { updates: { title: 'Changed' } }, { 'if-match': `W/${current}` })],
    ];
    for (const [path, init] of writes) {
      const res = await call(server.url, path, init);
      expectProblem(res, 412);
      expect(res.body.type).to.equal('https://analytics-desk.example/problems/precondition-failed');
      expect(res.body.detail).to.include(current);
      expect(res.headers.get('etag')).to.equal(current);
    }
    const after = await notebook();
    expect(after.headers.get('etag')).to.equal(current);
    expect(after.body).to.deep.equal(before.body);
  });

  it('applies a notebook write with the current tag (any coding form) and answers the new tag, to be revalidated', async () => {
    const cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'first' } });
    let etag = (await notebook()).headers.get('etag')!;
    const changed = await call(server.url, `/kantonsspital/api/notebook/cells/${cell.id}`, json('PUT', { updates: { text: { en: 'second' } } }, { 'if-match': etag }));
    expect(changed.status).to.equal(200);
    const next = changed.headers.get('etag')!;
    expect(next).to.not.equal(etag);
    // the notebook as the read answers it (NotebookOk), without sign-in too
    expect(changed.headers.get('cache-control')).to.equal('private, no-cache');
    expect((await notebook()).headers.get('etag')).to.equal(next);
    // the old tag is stale now
    expectProblem(await call(server.url, `/kantonsspital/api/notebook/cells/${cell.id}`, json('PUT', { updates: { text: { en: 'lost' } } }, { 'if-match': etag })), 412);
    etag = `${next.slice(0, -1)}-br"`;
    const added = await call(server.url, '/kantonsspital/api/notebook/cells', json('POST', { cell: { type: 'narrative', text: { en: 'third' } } }, { 'if-match': `"x", ${etag}` }));
    expect(added.status).to.equal(201);
    const star = await call(server.url, `/kantonsspital/api/notebook/cells/${cell.id}`, { method: 'DELETE', headers: { 'if-match': '*' } });
    expect(star.status).to.equal(200);
    expect(star.headers.get('cache-control')).to.equal('private, no-cache');
    expect(cellsOf(star.body).map((c) => c.text.en)).to.deep.equal(['third']);
    expect(star.headers.get('etag')).to.equal((await notebook()).headers.get('etag'));
  });

  it('answers 400 for an If-Match that is not a list of entity tags', async () => {
    const res = await call(server.url, '/kantonsspital/api/notebook/cells', json('POST', { cell: { type: 'narrative', text: { en: 'x' } } }, { 'if-match': 'no-quotes' }));
    expectProblem(res, 400);
    // the contract's pattern of If-Match refuses it before the handler runs
    expect(res.body.errors).to.have.length(1);
    expect(res.body.errors[0]).to.include({ in: 'header', name: 'if-match' });
    expect(res.body.errors[0].message).to.match(/^must match pattern/);
    expect(cellsOf((await notebook()).body)).to.have.length(0);
  });

  it('refuses every note write with a stale If-Match and writes nothing; the current tag applies it', async () => {
    const note = await createNote(server.url, 'kantonsspital');
    const cellId = await addNoteCell(server.url, 'kantonsspital', note.note_id, { type: 'discussion', title: 'Open question' });
    const path = `/kantonsspital/api/notes/${note.note_id}`;
    const before = await call(server.url, path);
    const current = before.headers.get('etag')!;
    const writes: Array<RequestInit & { json?: unknown }> = [
      json('POST', { cell: { type: 'narrative', text: { en: 'x' } } }, { 'if-match': STALE }),
      json('POST', { cell_id: cellId, reply: { text: { en: 'reply' } } }, { 'if-match': STALE }),
      json('PUT', { title: 'Renamed' }, { 'if-match': STALE }),
      json('PUT', { cell_id: cellId, updates: { title: 'Changed' } }, { 'if-match': STALE }),
      { method: 'DELETE', headers: { 'if-match': STALE } },
    ];
    for (const init of writes) {
      const res = await call(server.url, path + (init.method === 'DELETE' ? `?cell_id=${cellId}` : ''), init);
      expectProblem(res, 412);
      expect(res.headers.get('etag')).to.equal(current);
    }
    expectProblem(await call(server.url, path, { method: 'DELETE', headers: { 'if-match': STALE } }), 412);
    const after = await call(server.url, path);
    expect(after.body).to.deep.equal(before.body);
    expect(after.headers.get('etag')).to.equal(current);

    const renamed = await call(server.url, path, json('PUT', { title: 'Renamed' }, { 'if-match': current }));
    expect(renamed.body).to.deep.equal({ ok: true });
    const next = renamed.headers.get('etag')!;
    expect(next).to.not.equal(current);
    const read = await call(server.url, path);
    expect(read.body.note.title).to.equal('Renamed');
    expect(read.headers.get('etag')).to.equal(next);
    const gone = await call(server.url, path, { method: 'DELETE', headers: { 'if-match': next } });
    expect(gone.body).to.deep.equal({ ok: true });
    // the note no longer exists: any If-Match fails, `*` included
    const late = await call(server.url, path, json('PUT', { title: 'Too late' }, { 'if-match': '*' }));
    expectProblem(late, 412);
    expect(late.headers.get('etag')).to.equal(null);
  });

  it('gives each saved view its tag (created as ETag, listed when asked), honours If-Match on its update and delete', async () => {
    const created = await call(server.url, '/api/views', json('POST', { tenant: 'kantonsspital', entity: 'cost_centres', name: 'Budget', params: {} }));
    // the body keeps the members of the release before tags: clients generated from it refuse unknown ones
    expect(created.body.view).not.to.have.property('etag');
    const view = { ...created.body.view, etag: created.headers.get('etag') };
    expect(view.etag).to.match(/^"[A-Za-z0-9_-]+"$/);
    const plain = await call(server.url, '/api/views?tenant=kantonsspital');
    expect(plain.body.views[0]).not.to.have.property('etag');
    const tagged = await call(server.url, '/api/views?tenant=kantonsspital&include_etags=true');
    const listed = tagged.body.views;
    expect(listed.map((v: { etag: string }) => v.etag)).to.deep.equal([view.etag]);
    // the two representations of the list are tagged apart
    expect(tagged.headers.get('etag')).to.not.equal(plain.headers.get('etag'));

    const stale = await call(server.url, '/api/views', json('PUT', { tenant: 'kantonsspital', view_id: view.view_id, name: 'Lost' }, { 'if-match': STALE }));
    expectProblem(stale, 412);
    expect(stale.headers.get('etag')).to.equal(view.etag);
    expectProblem(await call(server.url, `/api/views?tenant=kantonsspital&view_id=${view.view_id}`, { method: 'DELETE', headers: { 'if-match': STALE } }), 412);
    expect((await call(server.url, '/api/views?tenant=kantonsspital&include_etags=true')).body.views).to.deep.equal(listed);

    const renamed = await call(server.url, '/api/views', json('PUT', { tenant: 'kantonsspital', view_id: view.view_id, name: 'Kept' }, { 'if-match': view.etag }));
    expect(renamed.body).to.deep.equal({ ok: true });
    const [now] = (await call(server.url, '/api/views?tenant=kantonsspital&include_etags=true')).body.views;
    expect(now.name).to.equal('Kept');
    expect(now.etag).to.equal(renamed.headers.get('etag')).and.not.equal(view.etag);
    expectProblem(await call(server.url, `/api/views?tenant=kantonsspital&view_id=${view.view_id}`, { method: 'DELETE', headers: { 'if-match': view.etag } }), 412);
    const deleted = await call(server.url, `/api/views?tenant=kantonsspital&view_id=${view.view_id}`, { method: 'DELETE', headers: { 'if-match': now.etag } });
    expect(deleted.body).to.deep.equal({ ok: true });
  });

  it('writes without If-Match as before: applied whatever changed meanwhile', async () => {
    const cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'a' } });
    const first = await call(server.url, `/kantonsspital/api/notebook/cells/${cell.id}`, json('PUT', { updates: { text: { en: 'b' } } }));
    const second = await call(server.url, `/kantonsspital/api/notebook/cells/${cell.id}`, json('PUT', { updates: { text: { en: 'c' } } }));
    expect([first.status, second.status]).to.deep.equal([200, 200]);
    expect(cellsOf(second.body)[0]!.text).to.deep.equal({ en: 'c' });
    const unknownNote = await call(server.url, '/kantonsspital/api/notes/00000000-0000-4000-8000-000000000000', json('PUT', { title: 'x' }));
    expect(unknownNote.body).to.deep.equal({ ok: false });
  });
});
