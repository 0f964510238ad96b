import { CHANGE_EVENT_SEQUENCE } from '../appdb/migrations/1765100000000-add-change-event-sequence.js';
import { NotifyChannel, type ChannelQuery } from '../appdb/notify-channel.js';
import type { Logger } from '../logger.js';
import type { ChangeEventName } from '../ports/events.js';
import type { EventReceiver, EventTransport } from './change-feed.js';

/** The PostgreSQL channel change events travel on. */
export const EVENTS_CHANNEL = 'analytics_desk_change_events';
/** The advisory lock that makes events commit, and so reach every instance, in the order of their `seq`. */
const ORDER_LOCK = '7303916154231405311';
/** Longest payload read from the channel (PostgreSQL allows 8,000 bytes). */
const MAX_PAYLOAD_CHARS = 8000;
/** Sends a payload with the next `seq`, in the order of `seq` on every instance ($1 the lock, $2 the channel, $3 the payload). */
const SEND = `WITH ordered AS (SELECT pg_advisory_xact_lock($1::bigint)) SELECT pg_notify($2, nextval('${CHANGE_EVENT_SEQUENCE}')::text || ' ' || $3) FROM ordered`;
/** The `e` of a notice that some of a tenant's events could not be sent: every instance tells its streams to reload. */
const GAP = 'reload';
const TENANT_ID = /^[a-z0-9][a-z0-9_-]{0,62}\.[a-z0-9][a-z0-9_-]{0,62}$/;
const NAMES = new Set<string>([
  'notebook-cell-added',
  'notebook-cell-changed',
  'notebook-cell-deleted',
  'discussion-reply-added',
  'note-created',
  'note-changed',
  'note-deleted',
  'note-cell-added',
  'note-cell-changed',
  'note-cell-deleted',
  'note-reply-added',
  'view-created',
  'view-changed',
  'view-deleted',
] satisfies Exclude<ChangeEventName, 'reload'>[]);

/**
 * The events of every instance on one PostgreSQL app database (docs/live-updates.md): an event is sent with NOTIFY
 * in one statement that takes its `seq` from a sequence of the database while holding an advisory lock until it
 * commits, so every instance hears every event in the order of `seq` and gives it the same ID. Once listening (at
 * start, or again after the connection broke) the sequence's current value is where the instance's knowledge
 * begins: an ID before it is answered with `reload`. The epoch of the IDs is the sequence's object ID, so that an ID
 * of another database (an app database moved or restored) is known as one. An event this instance could not send (before it first
 * listened, while its connection was away, a send that failed) is not heard by the others: once it listens again
 * it sends, for each tenant concerned, a notice in its place that tells every instance's streams to reload.
 */
export function postgresTransport(url: string, receiver: EventReceiver, log: Logger): EventTransport {
  // what is heard before the sequence's value is known waits, so that it is delivered after the restart
  let pending: (string | undefined)[] | null = [];
  // what the IDs are counted in: known once listening (no stream opens before)
  let epoch = 'p';
  // the tenants with events that did not reach the channel
  const unsent = new Set<string>();
  const take = (payload: string | undefined): void => {
    const event = parseEvent(payload);
    if (event === null) log.warn({ chars: payload?.length ?? 0 }, 'change events: ignored a malformed notification');
    else if (event.name === GAP) receiver.gap(event.seq, event.tenantId);
    else receiver.deliver(event.seq, event.tenantId, event.name, event.data);
  };
  const names = { channel: EVENTS_CHANNEL, applicationName: 'analytics-desk-server change events', purpose: 'change events' };
  const opening = NotifyChannel.open(
    url,
    names,
    {
      heard: (payload) => {
        if (pending !== null) pending.push(payload);
        else take(payload);
      },
      listening: async (query: ChannelQuery) => {
        pending ??= [];
        try {
          const { rows } = await query<{ head: string; sequence: string }>(
            `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS head, '${CHANGE_EVENT_SEQUENCE}'::regclass::oid AS sequence FROM ${CHANGE_EVENT_SEQUENCE}`,
            [],
          );
          // the sequence names the order: another database (a moved or restored one) counts in another
          epoch = `p${Number(rows[0]!.sequence).toString(36)}`;
          receiver.restart(Number(rows[0]!.head));
          for (const payload of pending) take(payload);
        } finally {
          pending = null;
        }
        // a notice the database refuses (it turned read-only) is sent with the next event instead: failing here would
        // make every connection a lost one, and every reconnection a reload of every stream
        try {
          for (const tenantId of [...unsent]) {
            await query(SEND, [ORDER_LOCK, EVENTS_CHANNEL, gapPayload(tenantId)]);
            unsent.delete(tenantId);
          }
        } catch (err) {
          // no answer, or the connection broke: a lost connection, as any other statement
          if (typeof (err as { code?: unknown }).code !== 'string') throw err;
          log.warn({ err: (err as Error).message, tenants: unsent.size }, 'change events: the reload for events not sent could not be sent; it goes with the next event');
        }
      },
    },
    log,
  );
  let channel: NotifyChannel | null = null;
  void opening.then((opened) => (channel = opened));
  return {
    get epoch() {
      return epoch;
    },
    get hearing() {
      return channel?.state === 'shared';
    },
    send(tenantId, name, data) {
      let payload = `{"t":${JSON.stringify(tenantId)},"e":${JSON.stringify(name)},"d":${data}}`;
      if (payload.length > MAX_PAYLOAD_CHARS - 20) {
        log.warn({ tenantId, name, chars: payload.length }, 'change events: an event too long for the channel is sent as a reload');
        payload = gapPayload(tenantId);
      }
      if (channel === null || channel.state !== 'shared') {
        log.warn({ tenantId, name }, 'change events: an event could not be sent to the instances; a reload follows once they are heard again');
        unsent.add(tenantId);
        return;
      }
      const open = channel;
      const sendNow = (tenant: string, text: string): void => {
        void open.send(SEND, [ORDER_LOCK, EVENTS_CHANNEL, text]).then((sent) => {
          if (!sent) unsent.add(tenant);
        });
      };
      for (const waiting of [...unsent]) {
        unsent.delete(waiting);
        sendNow(waiting, gapPayload(waiting));
      }
      sendNow(tenantId, payload);
    },
    async close() {
      await (await opening).close();
    },
  };
}

/** The notice that some of the tenant's events could not be sent. */
function gapPayload(tenantId: string): string {
  return `{"t":${JSON.stringify(tenantId)},"e":"${GAP}"}`;
}

/** An event heard on the channel: `<seq> {"t":tenant,"e":name,"d":data}`; null for anything else (any role on the database may NOTIFY). */
export function parseEvent(payload: string | undefined): { seq: number; tenantId: string; name: ChangeEventName; data: string } | null {
  if (payload === undefined || payload.length > MAX_PAYLOAD_CHARS) return null;
  const match = /^([0-9]{1,15}) (\{.*\})$/s.exec(payload);
  if (match === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(match[2]!);
  } catch {
    return null;
  }
  const { t, e, d } = (value ?? {}) as { t?: unknown; e?: unknown; d?: unknown };
  if (typeof t !== 'string' || !TENANT_ID.test(t) || typeof e !== 'string') return null;
  if (e === GAP && d === undefined) return { seq: Number(match[1]), tenantId: t, name: GAP, data: '' };
  if (!NAMES.has(e)) return null;
  if (d === null || typeof d !== 'object' || Array.isArray(d) || (d as { tenant_id?: unknown }).tenant_id !== t) return null;
  return { seq: Number(match[1]), tenantId: t, name: e as ChangeEventName, data: JSON.stringify(d) };
}
