import type pg from 'pg';
import type { Logger } from '../logger.js';
import { SLUG_PATTERN } from '../tenants/tenants.js';
import type { SyncScope } from './layout.js';

/** The PostgreSQL channel refreshes travel on. */
export const REFRESH_CHANNEL = 'analytics_desk_store_refresh';

/** Longest payload read from the channel (a refresh needs under 200 characters; PostgreSQL allows 8,000). */
const MAX_PAYLOAD_CHARS = 1000;

/** Waits before connecting again after the connection broke: doubling from the first to the last. */
export const RECONNECT_DELAYS_MS = { first: 500, last: 30_000 };

/** How long connecting, LISTEN, an announcement or a liveness check may take before the connection counts as lost. */
export const CHANNEL_DEADLINE_MS = 5000;
/** How often a listening connection that heard nothing is asked whether it still answers (a frozen or partitioned database says nothing). */
export const LIVENESS_INTERVAL_MS = 30_000;

/** What the channel does with what it hears. */
export interface RefreshListener {
  /** Another instance received a refresh of `scope`: carry it out here. */
  refresh(scope: SyncScope): void;
  /** Listening (again) after a time without: refreshes may have been missed, so sync everything. */
  caughtUp(): void;
}

/**
 * Refreshes shared by the instances on one PostgreSQL app database, with LISTEN/NOTIFY on a connection of its own:
 * announce() tells every other instance (and itself, which ignores its own), and each listening instance carries a
 * refresh out on its own cache. When the connection breaks (the database restarts or goes away) it connects again,
 * waiting longer each time up to 30 s, and once it listens again it asks for a sync of everything, since
 * notifications sent meanwhile are lost. Every statement on the connection has a deadline (CHANNEL_DEADLINE_MS):
 * one that passes it counts as a lost connection, and a listening connection is checked every
 * LIVENESS_INTERVAL_MS, so that a database that stopped answering without closing the connection is noticed.
 */
export class RefreshChannel {
  private client: pg.Client | null = null;
  private listening = false;
  private missed = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private liveness: NodeJS.Timeout | undefined;
  private delayMs = RECONNECT_DELAYS_MS.first;

  private constructor(
    private readonly pgModule: typeof pg,
    private readonly url: string,
    private readonly instance: string,
    private readonly listener: RefreshListener,
    private readonly log: Logger,
    private readonly deadlineMs: number,
  ) {}

  /** Starts listening on the app database at `url` (connecting in the background; a failure is retried). */
  static async open(url: string, instance: string, listener: RefreshListener, log: Logger, deadlineMs: number = CHANNEL_DEADLINE_MS): Promise<RefreshChannel> {
    const { default: pgModule } = await import('pg');
    const channel = new RefreshChannel(pgModule, url, instance, listener, log, deadlineMs);
    void channel.connect();
    return channel;
  }

  /** `shared` while it listens, `reconnecting` while it has no connection. */
  get state(): 'shared' | 'reconnecting' {
    return this.listening ? 'shared' : 'reconnecting';
  }

  /** Tells every instance on the database to refresh `scope`; false when the database did not take it. */
  async announce(scope: SyncScope): Promise<boolean> {
    const client = this.client;
    if (client === null || !this.listening) return false;
    try {
      await this.bounded(client, 'SELECT pg_notify($1, $2)', [REFRESH_CHANNEL, JSON.stringify({ from: this.instance, scope })]);
      return true;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'store refresh: the announcement to the other instances failed');
      // no answer in time: the connection is of no use any more; a new one catches up with a sync of everything
      this.lost(client, err as Error);
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.liveness);
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: pg.Client;
    try {
      client = new this.pgModule.Client({
        connectionString: this.url,
        application_name: 'analytics-desk-server store refresh',
        connectionTimeoutMillis: this.deadlineMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      });
    } catch (err) {
      // node-postgres reads the URL's sslcert, sslkey and sslrootcert files here: one it cannot read is thrown, not
      // reported by connect; uncaught, it ended the process
      if (!this.missed) this.log.warn({ err: (err as Error).message }, 'store refresh: no connection to the app database; connecting again');
      this.missed = true;
      this.timer = setTimeout(() => void this.connect(), this.delayMs);
      this.timer.unref();
      this.delayMs = Math.min(this.delayMs * 2, RECONNECT_DELAYS_MS.last);
      return;
    }
    client.on('notification', (message) => this.heard(message));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    this.client = client;
    try {
      await client.connect();
      await this.bounded(client, `LISTEN ${REFRESH_CHANNEL}`, []);
    } catch (err) {
      this.lost(client, err as Error);
      return;
    }
    if (this.client !== client || this.closed) return;
    this.listening = true;
    this.delayMs = RECONNECT_DELAYS_MS.first;
    clearInterval(this.liveness);
    this.liveness = setInterval(() => void this.checkLiveness(client), LIVENESS_INTERVAL_MS);
    this.liveness.unref();
    this.log.info({ channel: REFRESH_CHANNEL }, 'store refresh: listening for the refreshes of the other instances');
    if (this.missed) {
      this.missed = false;
      this.listener.caughtUp();
    }
  }

  private lost(client: pg.Client, err: Error | null): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.listening || !this.missed) this.log.warn({ err: err?.message ?? 'connection ended' }, 'store refresh: connection to the app database lost; connecting again');
    this.listening = false;
    this.missed = true;
    clearInterval(this.liveness);
    // end() waits for a database that may not answer: the socket is closed without it
    void client.end().catch(() => undefined);
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    if (this.closed) return;
    this.timer = setTimeout(() => void this.connect(), this.delayMs);
    this.timer.unref();
    this.delayMs = Math.min(this.delayMs * 2, RECONNECT_DELAYS_MS.last);
  }

  /** A trivial statement on the listening connection; no answer within the deadline counts as a lost connection. */
  private async checkLiveness(client: pg.Client): Promise<void> {
    if (this.client !== client) return;
    try {
      await this.bounded(client, 'SELECT 1', []);
    } catch (err) {
      this.lost(client, err as Error);
    }
  }

  /** `client.query` that rejects when no answer came within the deadline (the query itself is left to the dropped connection). */
  private async bounded(client: pg.Client, text: string, values: unknown[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.deadlineMs} ms`)), this.deadlineMs);
    });
    const query = client.query(text, values);
    query.catch(() => undefined);
    try {
      await Promise.race([query, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  private heard(message: pg.Notification): void {
    if (message.channel !== REFRESH_CHANNEL) return;
    const announced = parseAnnouncement(message.payload);
    if (announced === null) {
      this.log.warn({ chars: message.payload?.length ?? 0 }, 'store refresh: ignored a malformed announcement');
      return;
    }
    if (announced.from === this.instance) return;
    this.log.info({ from: announced.from, scope: announced.scope }, 'store refresh: announced by another instance');
    this.listener.refresh(announced.scope);
  }
}

/** The sender and scope of an announcement; null for anything else (any role on the database may NOTIFY). */
export function parseAnnouncement(payload: string | undefined): { from: string; scope: SyncScope } | null {
  if (payload === undefined || payload.length > MAX_PAYLOAD_CHARS) return null;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  const { from, scope } = (value ?? {}) as { from?: unknown; scope?: { kind?: unknown; pack?: unknown; slug?: unknown } };
  if (typeof from !== 'string' || from.length > 64 || typeof scope !== 'object' || scope === null) return null;
  const name = (n: unknown): n is string => typeof n === 'string' && SLUG_PATTERN.test(n);
  if (scope.kind === 'all') return { from, scope: { kind: 'all' } };
  if (scope.kind === 'pack' && name(scope.pack)) return { from, scope: { kind: 'pack', pack: scope.pack } };
  if (scope.kind === 'tenant' && name(scope.pack) && name(scope.slug)) return { from, scope: { kind: 'tenant', pack: scope.pack, slug: scope.slug } };
  return null;
}
