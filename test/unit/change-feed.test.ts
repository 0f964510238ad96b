import { expect } from 'chai';
import type { Readable } from 'node:stream';
import type { EventsConfig } from '../../src/config.js';
import { ChangeFeed, localTransport } from '../../src/events/change-feed.js';
import type { ChangeEventData } from '../../src/ports/events.js';
import { nextTurn, until } from '../helpers/until.js';

const SETTINGS: EventsConfig = { keepAliveMs: 15_000, retryMs: 2000, resumeEvents: 1000, resumeMs: 900_000, streamsPerCaller: 16, streamsMax: 100 };
const data: ChangeEventData = { tenant_id: 'ost.kantonsspital', resource: 'view', id: 'v-1', note_id: null, etag: null, by: null, at: '2026-12-02T10:00:00.000Z' };

/** Whether the stream's end was pushed (its reader may not have read it yet). */
const endPushed = (stream: Readable): boolean => (stream as unknown as { _readableState: { ended: boolean } })._readableState.ended;

describe('ChangeFeed (src/events/change-feed.ts)', () => {
  it('pushes nothing more to a stream it ended, before its reader has read the end', async () => {
    const feed = new ChangeFeed(SETTINGS, Date.now, (receiver) => localTransport(receiver, Date.now));
    try {
      const errors: Error[] = [];
      // the token expired: the stream ends; its client has not read so far
      const expired = feed.open('ost.kantonsspital', null, { limitKey: 'a', expiresAtMs: Date.now() - 1 });
      expired.on('error', (err) => errors.push(err));
      await until(() => endPushed(expired), { what: 'the end of the expired stream' });
      feed.publish('view-created', data);
      // SIGTERM: every stream ends as the instance stops accepting connections; writes in flight are still answered
      const stopping = feed.open('ost.kantonsspital', null, { limitKey: 'b' });
      stopping.on('error', (err) => errors.push(err));
      feed.endStreams();
      feed.publish('view-created', data);
      await nextTurn();
      expect(errors.map((err) => err.message)).to.deep.equal([]);
    } finally {
      await feed.close();
    }
  });
});
