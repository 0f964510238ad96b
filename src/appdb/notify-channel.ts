import type pg from 'pg';
import type { Logger } from '../logger.js';

/** Waits before connecting again after the connection broke: doubling from the first to the last. */
export const RECONNECT_DELAYS_MS = { first: 500, last: 30_000 };

/** How long connecting, LISTEN, a notification or a liveness check may take before the connection counts as lost. */
export const CHANNEL_DEADLINE_MS = 5000;
/** How often a listening connection that heard nothing is asked whether it still answers (a frozen or partitioned database says nothing). */
export const LIVENESS_INTERVAL_MS = 30_000;

/** How long closing waits for the database to end the listening connection before it closes the socket itself. */
const CLOSE_WAIT_MS = 1000;

/** Closes the client's socket without waiting for the database. */
function destroySocket(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** What one PostgreSQL channel is for: its name, the connection's `application_name`, the prefix of its log lines. */
export interface ChannelNames {
  readonly channel: string;
  readonly applicationName: string;
  readonly purpose: string;
}

/** A statement on the listening connection within the channel's deadline (a passed deadline counts as a lost connection). */
export type ChannelQuery = <R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>;

/** What a channel does with what it hears. */
export interface ChannelListener {
  /** A notification on the channel (any role on the database may send one: check it). */
  heard(payload: string | undefined): void;
  /**
   * Listening, and `query` runs on the listening connection: `again` after a time without (notifications sent
   * meanwhile are lost). The channel counts as listening once this has settled; a rejection counts as a lost
   * connection.
   */
  listening(query: ChannelQuery, again: boolean): Promise<void> | void;
}

/**
 * One PostgreSQL LISTEN/NOTIFY channel shared by the instances on one app database, on a connection of its own.
 * When the connection breaks (the database restarts or goes away) it connects again, waiting longer each time up to
 * 30 s, and tells its listener when it listens again, since notifications sent meanwhile are lost. Every statement
 * on the connection has a deadline (CHANNEL_DEADLINE_MS): one that passes it counts as a lost connection, and a
 * listening connection is checked every LIVENESS_INTERVAL_MS, so that a database that stopped answering without
 * closing the connection is noticed. Store refreshes (src/store/refresh-channel.ts) and the tenants' change events
 * (src/events/event-channel.ts) each have one.
 */
export class NotifyChannel {
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
    private readonly names: ChannelNames,
    private readonly listener: ChannelListener,
    private readonly log: Logger,
    private readonly deadlineMs: number,
  ) {}

  /** Starts listening on the app database at `url` (connecting in the background; a failure is retried). */
  static async open(url: string, names: ChannelNames, listener: ChannelListener, log: Logger, deadlineMs: number = CHANNEL_DEADLINE_MS): Promise<NotifyChannel> {
    const { default: pgModule } = await import('pg');
    const channel = new NotifyChannel(pgModule, url, names, listener, log, deadlineMs);
    void channel.connect();
    return channel;
  }

  /** `shared` while it listens, `reconnecting` while it has no connection. */
  get state(): 'shared' | 'reconnecting' {
    return this.listening ? 'shared' : 'reconnecting';
  }

  /**
   * Runs `text` (which sends the notification: `pg_notify`) on the listening connection within the deadline; false
   * when the database did not take it, and the connection is then given up.
   */
  async send(text: string, values: unknown[]): Promise<boolean> {
    const client = this.client;
    if (client === null || !this.listening) return false;
    try {
      await this.bounded(client, text, values);
      return true;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, `${this.names.purpose}: the notification to the other instances failed`);
      // no answer in time: the connection is of no use any more; a new one catches up
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
    if (client === null) return;
    // end() waits for the database to close its side, which a frozen one never does: the socket is closed without
    // it after a short wait, so that a stopping server is not held by its listening connection
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
      timer.unref();
    });
    await Promise.race([client.end().catch(() => undefined), waited]);
    clearTimeout(timer);
    destroySocket(client);
  }

  /** `client.query` that rejects when no answer came within the deadline (the query itself is left to the dropped connection). */
  private async bounded<R extends pg.QueryResultRow = pg.QueryResultRow>(client: pg.Client, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.deadlineMs} ms`)), this.deadlineMs);
    });
    const query = client.query<R>(text, values);
    query.catch(() => undefined);
    try {
      return await Promise.race([query, expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: pg.Client;
    try {
      client = new this.pgModule.Client({
        connectionString: this.url,
        application_name: this.names.applicationName,
        connectionTimeoutMillis: this.deadlineMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      });
    } catch (err) {
      // node-postgres reads the URL's sslcert, sslkey and sslrootcert files here: one it cannot read is thrown, not
      // reported by connect; uncaught, it ended the process
      if (!this.missed) this.log.warn({ err: (err as Error).message }, `${this.names.purpose}: no connection to the app database; connecting again`);
      this.missed = true;
      this.timer = setTimeout(() => void this.connect(), this.delayMs);
      this.timer.unref();
      this.delayMs = Math.min(this.delayMs * 2, RECONNECT_DELAYS_MS.last);
      return;
    }
    client.on('notification', (message) => {
      if (message.channel === this.names.channel && this.client === client) this.listener.heard(message.payload);
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    this.client = client;
    try {
      await client.connect();
      await this.bounded(client, `LISTEN ${this.names.channel}`, []);
      if (this.client !== client || this.closed) return;
      // what is heard from here on reaches the listener, also while it gets ready
      await this.listener.listening((text, values) => this.bounded(client, text, values), this.missed);
    } catch (err) {
      this.lost(client, err as Error);
      return;
    }
    if (this.client !== client || this.closed) return;
    this.listening = true;
    this.missed = false;
    this.delayMs = RECONNECT_DELAYS_MS.first;
    clearInterval(this.liveness);
    this.liveness = setInterval(() => void this.checkLiveness(client), LIVENESS_INTERVAL_MS);
    this.liveness.unref();
    this.log.info({ channel: this.names.channel }, `${this.names.purpose}: listening to the other instances`);
  }

  private lost(client: pg.Client, err: Error | null): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.listening || !this.missed) this.log.warn({ err: err?.message ?? 'connection ended' }, `${this.names.purpose}: connection to the app database lost; connecting again`);
    this.listening = false;
    this.missed = true;
    clearInterval(this.liveness);
    // end() waits for a database that may not answer: the socket is closed without it
    void client.end().catch(() => undefined);
    destroySocket(client);
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
}
