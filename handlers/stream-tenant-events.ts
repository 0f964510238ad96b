import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /{tenant}/api/events: the tenant's change events as Server-Sent Events, resumed after `Last-Event-ID`. */
export async function streamTenantEvents(input: Input<'streamTenantEvents'>, deps: Deps): Promise<Result<'streamTenantEvents'>> {
  const tenant = deps.tenants.resolve(input.path.tenant);
  const lastEventId = input.headers['last-event-id'];
  const stream = deps.events.open(tenant.compositeId, typeof lastEventId === 'string' ? lastEventId : null, input.caller);
  // no-store: a stream is nothing to keep; X-Accel-Buffering: no tells nginx-like proxies to pass each event on at once
  return { status: 200, contentType: 'text/event-stream', body: stream, headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } };
}
