import type { Readable } from 'node:stream';
import type { components } from '../../generated/openapi.js';

// The port of the tenants' change events (GET /{tenant}/api/events): what a write publishes and what a stream reads.
// The feed (src/events/change-feed.ts) implements it.

/** The `event:` of an event: what changed, or `reload`. */
export type ChangeEventName = components['schemas']['ChangeEventName'];
/** The `data:` of every event but `reload`. */
export type ChangeEventData = components['schemas']['ChangeEvent'];
/** The `data:` of `reload`. */
export type ReloadEventData = components['schemas']['ReloadEvent'];

/** Who opens a stream, as far as its bounds need: the key it counts under, and when its token expires. */
export interface StreamCaller {
  readonly limitKey: string;
  /** When the stream ends (the bearer token's `exp`, in ms since the epoch); absent without sign-in. */
  readonly expiresAtMs?: number | undefined;
}

/** The tenants' change events, on every instance sharing the app database. */
export interface ChangeEvents {
  /** Tells every stream of the tenant (`data.tenant_id`), on every instance, of a change that was answered. */
  publish(name: Exclude<ChangeEventName, 'reload'>, data: ChangeEventData): void;
  /**
   * A new stream of the tenant's events (`text/event-stream`), resumed after `lastEventId` when given; throws a 429
   * problem past the bounds on open streams and a 503 one while events of the other instances cannot be heard.
   */
  open(tenantId: string, lastEventId: string | null, caller: StreamCaller): Readable;
}
