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
    expect(text).to.match(/\nid: pg-[0-9]+\nevent: reload\ndata: \{"tenant_id":"ost\.kantonsspital","reason":"gap"/);
    // a stream that resumes after an ID from before the reload reloads too; after the reload's ID it misses nothing
    const reloadId = /id: (pg-[0-9]+)\nevent: reload/.exec(text)![1]!;
    const seq = Number(reloadId.slice(3));
    const before = reading(listening.open(TENANT, `pg-${seq - 1}`, CALLER));
    await until(() => before.text().includes('event: reload'), { what: 'a reload on the stream resumed before it' });
    const after = reading(listening.open(TENANT, reloadId, CALLER));
    await until(() => after.text().startsWith('retry:'), { what: 'the beginning of the stream resumed after it' });
    await openWhenHearing(writer);
    writer.publish('view-created', change('v-next'));
    await until(() => after.text().includes('"id":"v-next"'), { what: 'the next event after the reload' });
    expect(after.text()).not.to.include('event: reload');
  });
});
