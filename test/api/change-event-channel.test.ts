import { expect } from 'chai';
import type { Readable } from 'node:stream';
import pg from 'pg';
import { initializeAppDatabase } from '../../src/appdb/app-database.js';
import { parseAppDbUrl, type EventsConfig } from '../../src/config.js';
import { ChangeFeed } from '../../src/events/change-feed.js';
import { postgresTransport } from '../../src/events/event-channel.js';
import { createLogger } from '../../src/logger.js';
import type { ChangeEventData } from '../../src/ports/events.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

const log = createLogger('silent');
const SETTINGS: EventsConfig = { keepAliveMs: 15_000, retryMs: 2000, resumeEvents: 1000, resumeMs: 900_000, streamsPerCaller: 16, streamsMax: 100 };
const TENANT = 'ost.kantonsspital';
const CALLER = { limitKey: 'test' };

const change = (id: string): ChangeEventData => ({
  tenant_id: TENANT,
  resource: 'view',
  id,
  note_id: null,
  etag: null,
  by: null,
  at: new Date().toISOString(),
});

/** Everything a stream sent so far, as text. */
function reading(stream: Readable): { text: () => string } {
  let text = '';
  stream.on('data', (chunk: Buffer | string) => (text += chunk.toString()));
  return { text: () => text };
}

/** A feed on the PostgreSQL app database at `url`, as every instance has one. */
const feedOn = (url: string): ChangeFeed => new ChangeFeed(SETTINGS, Date.now, (receiver) => postgresTransport(url, receiver, log));

/** Opens a stream once the feed hears the other instances (503 before). */
const openWhenHearing = (feed: ChangeFeed): Promise<Readable> =>
  until(() => {
    try {
      return feed.open(TENANT, null, CALLER);
    } catch {
      return false;
    }
  }, { what: 'the feed to hear the instances' });

/** The change events' channel on a PostgreSQL app database: its sequence, and events that could not be sent. */
describe('change events on a PostgreSQL app database', function () {
  this.timeout(60_000);
  const feeds: ChangeFeed[] = [];
  afterEach(async () => {
    await Promise.all(feeds.splice(0).map((feed) => feed.close()));
  });

  it('takes the sequence from the migrations: a role that may create nothing sends and hears events', async () => {
    const postgres = await sharedPostgres();
    const url = await postgres.createDatabase('events_role');
    await (await initializeAppDatabase(parseAppDbUrl('url', url), log)).destroy();
    const database = new URL(url).pathname.slice(1);
    const role = `${database}_reader`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE "${role}" LOGIN PASSWORD 'limited'`);
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      await admin.query(`GRANT USAGE ON SCHEMA public TO "${role}"`);
      await admin.query(`GRANT USAGE, SELECT ON SEQUENCE analytics_desk_change_event_seq TO "${role}"`);
    } finally {
      await admin.end();
    }
    const limited = new URL(url);
    limited.username = role;
    limited.password = 'limited';
    const feed = feedOn(limited.toString());
    feeds.push(feed);
    const stream = reading(await openWhenHearing(feed));
    feed.publish('view-created', change('v-1'));
    await until(() => stream.text().includes('event: view-created'), { what: 'the event on the stream' });
  });

  it('tells the streams of every instance to reload when an instance could not send an event', async () => {
    const postgres = await sharedPostgres();
    const url = await postgres.createDatabase('events_gap');
    await (await initializeAppDatabase(parseAppDbUrl('url', url), log)).destroy();
    const listening = feedOn(url);
    feeds.push(listening);
    const stream = reading(await openWhenHearing(listening));
    // an instance that answers a write before it first listens cannot send its event to the others
    const writer = feedOn(url);
    feeds.push(writer);
    writer.publish('view-created', change('v-lost'));
    const text = await until(() => (stream.text().includes('event: reload') ? stream.text() : false), { what: 'a reload on the other instance' });
    expect(text).to.match(/\nid: p[0-9a-z]+-[0-9]+\nevent: reload\ndata: \{"tenant_id":"ost\.kantonsspital","reason":"gap"/);
    // a stream that resumes after an ID from before the reload reloads too; after the reload's ID it misses nothing
    const [, reloadId, epoch, seq] = /id: ((p[0-9a-z]+)-([0-9]+))\nevent: reload/.exec(text)!;
    const before = reading(listening.open(TENANT, `${epoch}-${Number(seq) - 1}`, CALLER));
    await until(() => before.text().includes('event: reload'), { what: 'a reload on the stream resumed before it' });
    const after = reading(listening.open(TENANT, reloadId!, CALLER));
    await until(() => after.text().startsWith('retry:'), { what: 'the beginning of the stream resumed after it' });
    await openWhenHearing(writer);
    writer.publish('view-created', change('v-next'));
    await until(() => after.text().includes('"id":"v-next"'), { what: 'the next event after the reload' });
    expect(after.text()).not.to.include('event: reload');
  });

  it('answers reload, never a silent gap, to an ID of another app database or ahead of what the instance heard', async () => {
    const postgres = await sharedPostgres();
    const [first, second] = await Promise.all([postgres.createDatabase('events_first'), postgres.createDatabase('events_second')]);
    await (await initializeAppDatabase(parseAppDbUrl('url', first), log)).destroy();
    await (await initializeAppDatabase(parseAppDbUrl('url', second), log)).destroy();
    const [onFirst, onSecond] = [feedOn(first), feedOn(second)];
    feeds.push(onFirst, onSecond);
    const firstStream = reading(await openWhenHearing(onFirst));
    const secondStream = reading(await openWhenHearing(onSecond));
    onFirst.publish('view-created', change('v-first'));
    for (const id of ['v-1', 'v-2', 'v-3']) onSecond.publish('view-created', change(id));
    const idOnFirst = await until(() => /id: (\S+)\nevent: view-created/.exec(firstStream.text())?.[1], { what: 'the event on the first database' });
    await until(() => secondStream.text().includes('"id":"v-3"'), { what: 'the events on the second database' });
    // a browser sent to an instance of another database (an app database moved, a restored backup) resumes there
    const moved = reading(onSecond.open(TENANT, idOnFirst, CALLER));
    await until(() => moved.text().startsWith('retry:'), { what: 'the beginning of the resumed stream' });
    expect(moved.text()).to.include('event: reload');
    expect(moved.text()).not.to.include('"id":"v-2"');
    // an ID ahead of what the instance heard: one still on its way would be sent twice, one of another database never
    const newest = /id: (\S+)\nevent: view-created\ndata: \{[^\n]*"id":"v-3"/.exec(secondStream.text())![1]!;
    const [epoch, seq] = [newest.slice(0, newest.lastIndexOf('-')), Number(newest.slice(newest.lastIndexOf('-') + 1))];
    const ahead = reading(onSecond.open(TENANT, `${epoch}-${seq + 1000}`, CALLER));
    await until(() => ahead.text().startsWith('retry:'), { what: 'the beginning of the stream resumed ahead' });
    expect(ahead.text()).to.include('event: reload');
  });

  it('hears the others while the database refuses the reload of an unsent event, and sends it once the database takes it', async () => {
    const postgres = await sharedPostgres();
    const url = await postgres.createDatabase('events_readonly');
    await (await initializeAppDatabase(parseAppDbUrl('url', url), log)).destroy();
    const database = new URL(url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const listening = feedOn(url);
      feeds.push(listening);
      const stream = reading(await openWhenHearing(listening));
      // the database turns read-only (a standby promoted the other way, default_transaction_read_only) for new connections
      await admin.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
      const writer = feedOn(url);
      feeds.push(writer);
      writer.publish('view-created', change('v-lost'));
      // its reload notice is refused: the instance hears the others all the same (no 503, no reconnection with reload)
      await openWhenHearing(writer);
      expect(stream.text()).not.to.include('event: reload');
      await admin.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = off`);
      // the next event finds the listening connection still read-only: it is given up, and the next one sends both
      writer.publish('view-created', change('v-after'));
      await until(() => stream.text().includes('event: reload'), { what: 'the reload on the other instance' });
    } finally {
      await admin.end();
    }
  });

  it('sends the events of writes answered after its streams ended for shutdown to the other instances', async () => {
    const postgres = await sharedPostgres();
    const url = await postgres.createDatabase('events_drain');
    await (await initializeAppDatabase(parseAppDbUrl('url', url), log)).destroy();
    const [stopping, staying] = [feedOn(url), feedOn(url)];
    feeds.push(stopping, staying);
    const stream = reading(await openWhenHearing(staying));
    await openWhenHearing(stopping);
    // SIGTERM: the streams end as the instance stops accepting connections; writes in flight are still answered
    stopping.endStreams();
    stopping.publish('view-created', change('v-in-flight'));
    await until(() => stream.text().includes('"id":"v-in-flight"'), { what: 'the event on the instance that stays' });
  });
});
