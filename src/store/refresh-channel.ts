import { CHANNEL_DEADLINE_MS, NotifyChannel } from '../appdb/notify-channel.js';
import type { Logger } from '../logger.js';
import { SLUG_PATTERN } from '../tenants/tenants.js';
import type { SyncScope } from './layout.js';

/** The PostgreSQL channel refreshes travel on. */
export const REFRESH_CHANNEL = 'analytics_desk_store_refresh';

/** Longest payload read from the channel (a refresh needs under 200 characters; PostgreSQL allows 8,000). */
const MAX_PAYLOAD_CHARS = 1000;

/** What the channel does with what it hears. */
export interface RefreshListener {
  /** Another instance received a refresh of `scope`: carry it out here. */
  refresh(scope: SyncScope): void;
  /** Listening (again) after a time without: refreshes may have been missed, so sync everything. */
  caughtUp(): void;
}

/**
 * Refreshes shared by the instances on one PostgreSQL app database, on a LISTEN/NOTIFY channel of their own
 * (src/appdb/notify-channel.ts: its connection, deadlines and reconnection): announce() tells every other instance
 * (and itself, which ignores its own), and each listening instance carries a refresh out on its own cache. Once it
 * listens again after a lost connection it asks for a sync of everything, since notifications sent meanwhile are
 * lost.
 */
export class RefreshChannel {
  private constructor(
    private readonly channel: NotifyChannel,
    private readonly instance: string,
  ) {}

  /** Starts listening on the app database at `url` (connecting in the background; a failure is retried). */
  static async open(url: string, instance: string, listener: RefreshListener, log: Logger, deadlineMs: number = CHANNEL_DEADLINE_MS): Promise<RefreshChannel> {
    const names = { channel: REFRESH_CHANNEL, applicationName: 'analytics-desk-server store refresh', purpose: 'store refresh' };
    const channel = await NotifyChannel.open(
      url,
      names,
      {
        heard: (payload) => {
          const announced = parseAnnouncement(payload);
          if (announced === null) {
            log.warn({ chars: payload?.length ?? 0 }, 'store refresh: ignored a malformed announcement');
            return;
          }
          if (announced.from === instance) return;
          log.info({ from: announced.from, scope: announced.scope }, 'store refresh: announced by another instance');
          listener.refresh(announced.scope);
        },
        listening: (_query, again) => {
          if (again) listener.caughtUp();
        },
      },
      log,
      deadlineMs,
    );
    return new RefreshChannel(channel, instance);
  }

  /** `shared` while it listens, `reconnecting` while it has no connection. */
  get state(): 'shared' | 'reconnecting' {
    return this.channel.state;
  }

  /** Tells every instance on the database to refresh `scope`; false when the database did not take it. */
  async announce(scope: SyncScope): Promise<boolean> {
    return this.channel.send('SELECT pg_notify($1, $2)', [REFRESH_CHANNEL, JSON.stringify({ from: this.instance, scope })]);
  }

  async close(): Promise<void> {
    await this.channel.close();
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
