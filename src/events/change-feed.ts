import { Readable } from 'node:stream';
import type { EventsConfig } from '../config.js';
import { Problem } from '../common/problems.js';
import type { ChangeEventData, ChangeEventName, ChangeEvents, ReloadEventData, StreamCaller } from '../ports/events.js';
import { EventLog, eventIdOf, seqOf } from './event-log.js';

/** What the transport hands the feed, in the order of `seq`. */
export interface EventReceiver {
  /** An event of any instance (this one included), `data` its JSON in one line. */
  deliver(seq: number, tenantId: string, name: ChangeEventName, data: string): void;
  /**
   * Every event after `head` will be delivered; what came before may not have been (at start, or after the link to
   * the other instances broke): the kept events are let go and open streams told to reload.
   */
  restart(head: number): void;
  /** Some of the tenant's events before `seq` were not delivered (another instance could not send them): its streams reload. */
  gap(seq: number, tenantId: string): void;
}

/** How events get their `seq` and reach every instance: within this process (SQLite), or through PostgreSQL. */
export interface EventTransport {
  /** The order the `seq` of an ID counts in. */
  readonly epoch: string;
  /** Whether the events of every instance are heard now; while not, new streams are refused (503). */
  readonly hearing: boolean;
  /** Gives the event its `seq` and delivers it, here and on every other instance. */
  send(tenantId: string, name: ChangeEventName, data: string): void;
  close(): Promise<void>;
}

/** A stream whose client reads more slowly than this many bytes pile up is cut (its browser resumes). */
const MAX_UNREAD_BYTES = 256 * 1024;
/** `Retry-After` of a stream refused for its bounds or while the other instances cannot be heard. */
const RETRY_AFTER_S = 5;
/** The longest timer Node keeps (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface TenantEvents {
  readonly log: EventLog;
  readonly streams: Set<Readable>;
}

/**
 * The tenants' change events on one instance (docs/live-updates.md): every event delivered by the transport is kept
 * in its tenant's log (the resume window) and written to the tenant's open streams. A stream begins with `retry:`
 * and, resuming, the kept events after its Last-Event-ID (or `reload` when some may be missing); a comment every
 * `keepAliveMs`; it ends when its caller's token expires, when the feed stops, or when its client reads too slowly.
 */
export class ChangeFeed implements ChangeEvents, EventReceiver {
  private readonly tenants = new Map<string, TenantEvents>();
  private readonly perCaller = new Map<string, number>();
  private readonly everyStream = new Set<Readable>();
  private readonly keepAlive: NodeJS.Timeout;
  private readonly transport: EventTransport;
  /** The newest `seq` heard. */
  private head = 0;
  /** Every event after this `seq` has been heard. */
  private knownFrom = 0;
  private ended = false;
  private closed = false;
  /** Streams whose end was pushed (their client may not have read it yet): nothing more may be pushed to them. */
  private readonly ending = new WeakSet<Readable>();

  /** The feed over the transport `connect` makes (given the feed to deliver to). */
  constructor(
    private readonly settings: EventsConfig,
    private readonly now: () => number,
    connect: (receiver: EventReceiver) => EventTransport,
  ) {
    this.transport = connect(this);
    this.keepAlive = setInterval(() => {
      for (const stream of this.everyStream) this.write(stream, ': keep-alive\n\n');
    }, settings.keepAliveMs);
    this.keepAlive.unref();
  }

  /** Streams open on this instance. */
  get openStreams(): number {
    return this.everyStream.size;
  }

  publish(name: Exclude<ChangeEventName, 'reload'>, data: ChangeEventData): void {
    // after endStreams the writes still in flight are answered: their events go on to the other instances' streams
    if (this.closed) return;
    this.transport.send(data.tenant_id, name, JSON.stringify(data));
  }

  open(tenantId: string, lastEventId: string | null, caller: StreamCaller): Readable {
    if (this.ended) throw new Problem('service-unavailable', 'this instance is shutting down; open the stream again', { retryAfterSeconds: 1 });
    if (!this.transport.hearing) {
      throw new Problem('service-unavailable', 'the changes of the other instances cannot be followed now; retry later', { retryAfterSeconds: RETRY_AFTER_S });
    }
    const { streamsPerCaller, streamsMax } = this.settings;
    const mine = this.perCaller.get(caller.limitKey) ?? 0;
    if (mine >= streamsPerCaller) {
      throw new Problem('too-many-requests', `at most ${streamsPerCaller} event streams open at once per caller; retry in ${RETRY_AFTER_S} s`, { retryAfterSeconds: RETRY_AFTER_S });
    }
    if (this.everyStream.size >= streamsMax) {
      throw new Problem('too-many-requests', `this instance has ${streamsMax} event streams open; retry in ${RETRY_AFTER_S} s`, { retryAfterSeconds: RETRY_AFTER_S });
    }
    const tenant = this.tenantOf(tenantId);
    const stream = new Readable({ read() {} });
    this.perCaller.set(caller.limitKey, mine + 1);
    this.everyStream.add(stream);
    tenant.streams.add(stream);
    let expiry: NodeJS.Timeout | undefined;
    if (caller.expiresAtMs !== undefined) {
      expiry = setTimeout(() => this.end(stream), Math.min(MAX_TIMER_MS, Math.max(0, caller.expiresAtMs - this.now())));
      expiry.unref();
    }
    stream.once('close', () => {
      clearTimeout(expiry);
      this.everyStream.delete(stream);
      tenant.streams.delete(stream);
      const left = (this.perCaller.get(caller.limitKey) ?? 1) - 1;
      if (left > 0) this.perCaller.set(caller.limitKey, left);
      else this.perCaller.delete(caller.limitKey);
    });
    this.write(stream, this.beginning(tenantId, tenant.log, lastEventId));
    return stream;
  }

  deliver(seq: number, tenantId: string, name: ChangeEventName, data: string): void {
    this.head = Math.max(this.head, seq);
    const tenant = this.tenantOf(tenantId);
    const text = `id: ${eventIdOf(this.transport.epoch, seq)}\nevent: ${name}\ndata: ${data}\n\n`;
    tenant.log.append({ seq, atMs: this.now(), text });
    for (const stream of tenant.streams) this.write(stream, text);
  }

  gap(seq: number, tenantId: string): void {
    this.head = Math.max(this.head, seq);
    const tenant = this.tenantOf(tenantId);
    // a stream that resumes after an ID before the notice reloads too
    tenant.log.cut(seq);
    const reload = this.reload(tenantId, seq);
    for (const stream of tenant.streams) this.write(stream, reload);
  }

  restart(head: number): void {
    this.head = head;
    this.knownFrom = head;
    for (const [tenantId, tenant] of this.tenants) {
      if (tenant.streams.size === 0) {
        this.tenants.delete(tenantId);
        continue;
      }
      tenant.log.prune(Number.POSITIVE_INFINITY);
      const reload = this.reload(tenantId, this.head);
      for (const stream of tenant.streams) this.write(stream, reload);
    }
  }

  /** Ends every open stream and refuses new ones (the instance stops accepting connections). */
  endStreams(): void {
    this.ended = true;
    clearInterval(this.keepAlive);
    for (const stream of this.everyStream) this.end(stream);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.endStreams();
    await this.transport.close();
  }

  /** What a stream begins with: `retry:`, then where it resumes from. */
  private beginning(tenantId: string, log: EventLog, lastEventId: string | null): string {
    const retry = `retry: ${this.settings.retryMs}\n`;
    const idOfHead = eventIdOf(this.transport.epoch, this.head);
    // an `id:` without data sets the browser's Last-Event-ID without an event: a client that loses the stream before
    // the first event resumes from here
    if (lastEventId === null) return `${retry}id: ${idOfHead}\n\n`;
    log.prune(this.now());
    const seq = seqOf(this.transport.epoch, lastEventId);
    // an ID ahead of what was heard is of another order, or of an event still on its way here: resuming after it
    // would send that event twice, or leave out the events of this order before it
    const missing = seq === null || seq < Math.max(this.knownFrom, log.floor) || seq > this.head;
    if (missing) return `${retry}\n${this.reload(tenantId, this.head)}`;
    return `${retry}\n${log
      .after(seq)
      .map((event) => event.text)
      .join('')}`;
  }

  private reload(tenantId: string, seq: number): string {
    const data: ReloadEventData = { tenant_id: tenantId, reason: 'gap', at: new Date(this.now()).toISOString() };
    return `id: ${eventIdOf(this.transport.epoch, seq)}\nevent: reload\ndata: ${JSON.stringify(data)}\n\n`;
  }

  private tenantOf(tenantId: string): TenantEvents {
    let tenant = this.tenants.get(tenantId);
    if (tenant === undefined) {
      tenant = { log: new EventLog(this.settings.resumeEvents, this.settings.resumeMs), streams: new Set() };
      this.tenants.set(tenantId, tenant);
    }
    return tenant;
  }

  private end(stream: Readable): void {
    if (this.ending.has(stream)) return;
    this.ending.add(stream);
    stream.push(null);
  }

  private write(stream: Readable, text: string): void {
    if (stream.destroyed || this.ending.has(stream)) return;
    if (stream.readableLength > MAX_UNREAD_BYTES) {
      stream.destroy();
      return;
    }
    stream.push(text);
  }
}

/**
 * The transport of one instance alone (a SQLite app database): `seq` counts in this process, whose start names the
 * epoch, so that an ID of an earlier process is known as such.
 */
export function localTransport(receiver: EventReceiver, now: () => number): EventTransport {
  let seq = 0;
  return {
    epoch: now().toString(36),
    hearing: true,
    send(tenantId, name, data) {
      seq += 1;
      receiver.deliver(seq, tenantId, name, data);
    },
    async close() {},
  };
}
