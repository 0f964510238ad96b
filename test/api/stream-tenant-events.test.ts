import { expect } from 'chai';
import { addNotebookCell, createNote, createView } from '../helpers/collaboration.js';
import { describeEachAppDatabase } from '../helpers/app-databases.js';
import { EventStreamClient, type StreamEvent } from '../helpers/event-stream.js';
import { call, expectProblem } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const EVENTS = '/kantonsspital/api/events';
const dataOf = (event: StreamEvent): Record<string, any> => JSON.parse(event.data);

describeEachAppDatabase('GET /{tenant}/api/events', (db) => {
  let server: TestServer;
  const streams: EventStreamClient[] = [];
  const open = async (path = EVENTS, headers: Record<string, string> = {}): Promise<EventStreamClient> => {
    const stream = await EventStreamClient.open(server.url, path, headers);
    streams.push(stream);
    return stream;
  };
  before(async () => {
    server = await startTestServer({ env: { ...(await db.env()), EVENTS_RESUME_EVENTS: '100', EVENTS_KEEPALIVE_MS: '1000' } });
    // on PostgreSQL, streams open once the instance hears the others
    (await EventStreamClient.openWhenHearing(server.url, EVENTS)).close();
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  after(async () => server.close());

  it('begins with retry: and an id:, and tells of a cell added with its kind, ID, new entity tag and time', async () => {
    const stream = await open();
    expect(stream.status).to.equal(200);
    expect(stream.headers['content-type']).to.equal('text/event-stream');
    expect(stream.headers['cache-control']).to.include('no-store');
    expect(stream.headers['x-accel-buffering']).to.equal('no');
    await stream.started();
    expect(stream.start.retry).to.equal(2000);
    const added = await call(server.url, '/kantonsspital/api/notebook/cells', { method: 'POST', json: { cell: { type: 'narrative', text: { en: 'Live' } } } });
    expect(added.status).to.equal(201);
    const [event] = await stream.take(1);
    expect(event!.event).to.equal('notebook-cell-added');
    expect(event!.id).to.match(/^[0-9a-z]+-[0-9]+$/);
    const data = dataOf(event!);
    expect(data).to.deep.include({ tenant_id: 'ost.kantonsspital', resource: 'notebook-cell', note_id: null, etag: added.headers.get('etag'), by: null });
    expect(added.headers.get('location')).to.equal(`/kantonsspital/api/notebook/cells/${data.id}`);
    expect(Date.parse(data.at)).to.be.closeTo(Date.now(), 60_000);
    // the tag is the one a revalidation of the notebook sends
    expect((await call(server.url, '/kantonsspital/api/notebook', { headers: { 'if-none-match': data.etag } })).status).to.equal(304);
  });

  it('tells of every write of the notebook, the notes and the views, in order, and of nothing that changed nothing', async () => {
    const stream = await open('/ost.kantonsspital/api/events');
    await stream.started();
    const base = server.url;
    const discussion = await addNotebookCell(base, 'kantonsspital', { type: 'discussion', title: 'Unbilled' });
    const cellId = discussion.id as string;
    expect((await call(base, `/kantonsspital/api/notebook/cells/${cellId}/discussion`, { method: 'POST', json: { author: 'L', text: { en: 'Done' } } })).status).to.equal(201);
    expect((await call(base, `/kantonsspital/api/notebook/cells/${cellId}`, { method: 'PUT', json: { updates: { title: 'Billed' } } })).status).to.equal(200);
    // refused and empty writes: a failed precondition, an unknown cell, an unknown view
    expect((await call(base, `/kantonsspital/api/notebook/cells/${cellId}`, { method: 'PUT', headers: { 'if-match': '"stale"' }, json: { updates: { title: 'x' } } })).status).to.equal(412);
    expect((await call(base, '/kantonsspital/api/notebook/cells/00000000-0000-4000-8000-000000000000', { method: 'DELETE' })).status).to.equal(404);
    expect((await call(base, '/api/views', { method: 'PUT', json: { tenant: 'kantonsspital', view_id: '00000000-0000-4000-8000-000000000000', name: 'x' } })).body).to.deep.equal({ ok: false });
    expect((await call(base, `/kantonsspital/api/notebook/cells/${cellId}`, { method: 'DELETE' })).status).to.equal(200);
    const note = await createNote(base, 'kantonsspital');
    const noteId = note.note_id as string;
    const noteCell = await call(base, `/kantonsspital/api/notes/${noteId}`, { method: 'POST', json: { cell: { type: 'discussion', title: 'Q' } } });
    const noteCellId = noteCell.body.cell_id as string;
    expect((await call(base, `/kantonsspital/api/notes/${noteId}`, { method: 'POST', json: { cell_id: noteCellId, reply: { text: { en: 'A' } } } })).status).to.equal(200);
    expect((await call(base, `/kantonsspital/api/notes/${noteId}`, { method: 'PUT', json: { cell_id: noteCellId, updates: { title: 'Q2' } } })).body).to.deep.equal({ ok: true });
    expect((await call(base, `/kantonsspital/api/notes/${noteId}`, { method: 'PUT', json: { title: 'Renamed' } })).body).to.deep.equal({ ok: true });
    expect((await call(base, `/kantonsspital/api/notes/${noteId}?cell_id=${noteCellId}`, { method: 'DELETE' })).body).to.deep.equal({ ok: true });
    expect((await call(base, `/kantonsspital/api/notes/${noteId}`, { method: 'DELETE' })).body).to.deep.equal({ ok: true });
    const view = await createView(base, 'kantonsspital');
    const viewId = view.view_id as string;
    expect((await call(base, '/api/views', { method: 'PUT', json: { tenant: 'kantonsspital', view_id: viewId, name: 'Renamed' } })).body).to.deep.equal({ ok: true });
    expect((await call(base, `/api/views?tenant=kantonsspital&view_id=${viewId}`, { method: 'DELETE' })).body).to.deep.equal({ ok: true });
    // another tenant's change is not this stream's
    await addNotebookCell(base, 'west.hopital-cantonal', { type: 'narrative', text: { en: 'elsewhere' } });
    const events = await stream.take(14);
    expect(events.map((e) => e.event)).to.deep.equal([
      'notebook-cell-added',
      'discussion-reply-added',
      'notebook-cell-changed',
      'notebook-cell-deleted',
      'note-created',
      'note-cell-added',
      'note-reply-added',
      'note-cell-changed',
      'note-changed',
      'note-cell-deleted',
      'note-deleted',
      'view-created',
      'view-changed',
      'view-deleted',
    ]);
    const data = events.map(dataOf);
    expect(data.slice(0, 4).map((d) => d.id)).to.deep.equal([cellId, cellId, cellId, cellId]);
    expect(data.slice(5, 8).map((d) => [d.resource, d.id, d.note_id])).to.deep.equal(Array(3).fill(['note-cell', noteCellId, noteId]));
    expect(data[4]).to.include({ resource: 'note', id: noteId, note_id: null });
    expect(data[11]).to.include({ resource: 'view', id: viewId });
    expect(data[11]!.etag).to.match(/^"/);
    expect(data[13]).to.include({ etag: null });
    expect(data.every((d) => d.tenant_id === 'ost.kantonsspital')).to.equal(true);
    const ids = events.map((e) => Number(e.id!.split('-')[1]));
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('resumes after Last-Event-ID with the missed events in order and no duplicates', async () => {
    const first = await open();
    await first.started();
    const cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'one' } });
    const one = await first.find((e) => dataOf(e).id === cell.id);
    first.close();
    await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'two' } });
    await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'three' } });
    const resumed = await open(EVENTS, { 'last-event-id': one!.id! });
    const missed = await resumed.take(2);
    await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'four' } });
    const all = await resumed.take(3);
    expect(all.map((e) => e.event)).to.deep.equal(['notebook-cell-added', 'notebook-cell-added', 'notebook-cell-added']);
    expect(all.slice(0, 2)).to.deep.equal(missed);
    expect(new Set([one!.id, ...all.map((e) => e.id)]).size).to.equal(4);
    expect(Number(all[0]!.id!.split('-')[1])).to.be.greaterThan(Number(one!.id!.split('-')[1]));
  });

  it('resumes from the id: a stream began with, when it was lost before its first event', async () => {
    const first = await open();
    await first.started();
    first.close();
    const added = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'while away' } });
    const resumed = await open(EVENTS, { 'last-event-id': first.start.id! });
    const [event] = await resumed.take(1);
    expect(event!.event).to.equal('notebook-cell-added');
    expect(dataOf(event!).id).to.equal(added.id);
  });

  it('answers an ID older than the window, or one it never sent, with reload first, then follows the stream', async () => {
    const first = await open();
    const old = await first.started();
    // past EVENTS_RESUME_EVENTS (100) events of the tenant, all heard by the instance (on PostgreSQL they come back
    // through the database) before the old ID is tried
    let last = '';
    for (let i = 0; i < 101; i++) last = (await createView(server.url, 'kantonsspital', 'cost_centres', `View ${i}`)).view_id;
    await first.find((e) => dataOf(e).id === last);
    first.close();
    for (const lastEventId of [old, 'not-an-id', '0-1']) {
      const stream = await open(EVENTS, { 'last-event-id': lastEventId });
      const [reload] = await stream.take(1);
      expect(reload!.event, lastEventId).to.equal('reload');
      expect(dataOf(reload!)).to.deep.include({ tenant_id: 'ost.kantonsspital', reason: 'gap' });
      await createView(server.url, 'kantonsspital', 'cost_centres', 'After the reload');
      const [, next] = await stream.take(2);
      expect(next!.event).to.equal('view-created');
      expect(Number(next!.id!.split('-')[1])).to.be.greaterThan(Number(reload!.id!.split('-')[1]));
      stream.close();
    }
  });

  it('is neither compressed nor held back when the client accepts gzip and br, and sends keep-alive comments', async () => {
    const stream = await open(EVENTS, { 'accept-encoding': 'gzip, br' });
    expect(stream.headers['content-encoding']).to.equal(undefined);
    await stream.started();
    const cell = await addNotebookCell(server.url, 'kantonsspital', { type: 'narrative', text: { en: 'x'.repeat(4000) } });
    const event = await stream.find((e) => dataOf(e).id === cell.id);
    expect(event.event).to.equal('notebook-cell-added');
    await stream.until(() => stream.comments >= 1);
    expect(stream.text).to.include(': keep-alive\n\n');
  });

  it('answers 404 for an unknown tenant and 400 for a malformed one, sending nothing else', async () => {
    const unknown = await call(server.url, '/nosuchtenant/api/events');
    expectProblem(unknown, 404);
    const malformed = await call(server.url, '/NO!/api/events');
    expect(malformed.status).to.equal(400);
  });
});

describe('GET /{tenant}/api/events: bounds and shutdown', () => {
  it('answers 429 with Retry-After past the streams of one caller, and opens again once one closed', async () => {
    const server = await startTestServer({ env: { EVENTS_STREAMS_PER_CALLER: '2' } });
    const open: EventStreamClient[] = [];
    try {
      for (let i = 0; i < 2; i++) open.push(await EventStreamClient.open(server.url, EVENTS));
      expect(open.map((s) => s.status)).to.deep.equal([200, 200]);
      const refused = await call(server.url, EVENTS);
      expectProblem(refused, 429);
      expect(refused.headers.get('retry-after')).to.equal('5');
      expect(refused.body.detail).to.include('at most 2 event streams');
      open.shift()!.close();
      await until(() => server.deps.events.openStreams === 1, { what: 'the server to see the stream closed' });
      const again = await EventStreamClient.open(server.url, EVENTS);
      expect(again.status).to.equal(200);
      open.push(again);
    } finally {
      for (const stream of open) stream.close();
      await server.close();
    }
  });

  it('answers 429 with Retry-After past the streams of the instance, whoever asks', async () => {
    const server = await startTestServer({ env: { EVENTS_STREAMS_MAX: '1' } });
    const held = await EventStreamClient.open(server.url, EVENTS);
    try {
      expect(held.status).to.equal(200);
      const refused = await call(server.url, '/west.hopital-cantonal/api/events');
      expectProblem(refused, 429);
      expect(refused.headers.get('retry-after')).to.equal('5');
      expect(refused.body.detail).to.include('this instance has 1 event streams open');
    } finally {
      held.close();
      await server.close();
    }
  });

  it('ends every stream cleanly when the server stops, well within the grace period', async () => {
    const server = await startTestServer();
    const stream = await EventStreamClient.open(server.url, EVENTS);
    await stream.started();
    const started = performance.now();
    await server.stop(20_000);
    await stream.until(() => stream.ended);
    expect(performance.now() - started).to.be.below(5000);
    expect(stream.text.endsWith('\n\n')).to.equal(true);
    await server.close();
  });
});
