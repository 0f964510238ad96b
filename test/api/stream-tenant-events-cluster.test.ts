import { expect } from 'chai';
import { addNotebookCell } from '../helpers/collaboration.js';
import { EventStreamClient } from '../helpers/event-stream.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const EVENTS = '/kantonsspital/api/events';

/** Two instances on one PostgreSQL app database: a change through one reaches the streams of both, with one ID. */
describe('GET /{tenant}/api/events across instances on one PostgreSQL app database', function () {
  this.timeout(120_000);
  let postgres: TestPostgres;
  let a: TestServer;
  let b: TestServer;
  const streams: EventStreamClient[] = [];
  const open = async (server: TestServer, headers: Record<string, string> = {}): Promise<EventStreamClient> => {
    const stream = await EventStreamClient.openWhenHearing(server.url, EVENTS, headers);
    streams.push(stream);
    return stream;
  };

  before(async () => {
    postgres = await startPostgres();
    const appDb = await postgres.createDatabase('events');
    [a, b] = await Promise.all([startTestServer({ env: { APP_DB_URL: appDb } }), startTestServer({ env: { APP_DB_URL: appDb } })]);
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await postgres?.close();
  });

  it('delivers a change made through one instance to the streams of both, with the same ID and data', async () => {
    const [onA, onB] = [await open(a), await open(b)];
    await Promise.all([onA.started(), onB.started()]);
    const cell = await addNotebookCell(a.url, 'kantonsspital', { type: 'narrative', text: { en: 'through a' } });
    const [[fromA], [fromB]] = await Promise.all([onA.take(1), onB.take(1)]);
    expect(fromB).to.deep.equal(fromA);
    expect(JSON.parse(fromB!.data).id).to.equal(cell.id);
    // and the other way round, after it in the one order
    await addNotebookCell(b.url, 'kantonsspital', { type: 'narrative', text: { en: 'through b' } });
    const [[, secondA], [, secondB]] = await Promise.all([onA.take(2), onB.take(2)]);
    expect(secondA).to.deep.equal(secondB);
    expect(Number(secondA!.id!.split('-')[1])).to.be.greaterThan(Number(fromA!.id!.split('-')[1]));
  });

  it('resumes on the other instance after an ID the first one sent, without losing or repeating an event', async () => {
    const onA = await open(a);
    await onA.started();
    await addNotebookCell(a.url, 'kantonsspital', { type: 'narrative', text: { en: 'seen on a' } });
    const [seen] = await onA.take(1);
    onA.close();
    const missed = [
      await addNotebookCell(a.url, 'kantonsspital', { type: 'narrative', text: { en: 'missed 1' } }),
      await addNotebookCell(b.url, 'kantonsspital', { type: 'narrative', text: { en: 'missed 2' } }),
    ];
    const onB = await open(b, { 'last-event-id': seen!.id! });
    const resumed = await onB.take(2);
    expect(resumed.map((e) => JSON.parse(e.data).id)).to.deep.equal(missed.map((c) => c.id));
    expect(resumed.map((e) => e.event)).to.deep.equal(['notebook-cell-added', 'notebook-cell-added']);
  });

  it('tells open streams to reload once the instance hears the others again after PostgreSQL was away', async () => {
    const onB = await open(b);
    await onB.started();
    await postgres.stop();
    try {
      // while the instance cannot hear the others, a new stream is refused (503) and nothing is sent
      const refused = await until(async () => {
        const tried = await EventStreamClient.open(b.url, EVENTS);
        if (tried.status === 200) {
          tried.close();
          return false;
        }
        const body = await tried.body();
        return tried.status === 503 ? { headers: tried.headers, body } : false;
      }, { what: 'a 503 while PostgreSQL is away' });
      expect(refused.headers['retry-after']).to.equal('5');
      expect(JSON.parse(refused.body)).to.include({ status: 503 });
      await addNotebookCell(a.url, 'kantonsspital', { type: 'narrative', text: { en: 'while away' } }).catch(() => undefined);
    } finally {
      await postgres.start();
    }
    const reload = await onB.find((e) => e.event === 'reload');
    expect(JSON.parse(reload.data)).to.deep.include({ tenant_id: 'ost.kantonsspital', reason: 'gap' });
    // the stream goes on from the reload's ID
    const after = await open(b, { 'last-event-id': reload.id! });
    // the writing instance hears the others again too (an event it answers before is a reload on every stream)
    await open(a);
    await addNotebookCell(a.url, 'kantonsspital', { type: 'narrative', text: { en: 'after' } });
    const [next] = await after.take(1);
    expect(next!.event).to.equal('notebook-cell-added');
  });
});
