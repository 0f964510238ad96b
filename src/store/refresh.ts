import type { components } from '../../generated/openapi.js';
import { forbidden, Problem, invalidRequest } from '../common/problems.js';
import type { RefreshAnswer, RefreshRequest } from '../ports/server-state.js';
import type { Tenants } from '../tenants/tenants.js';
import type { KlsStore } from './kls-store.js';
import type { SyncScope } from './layout.js';

/** Outcome outside KLS store mode. */
export type RefreshSkipped = components['schemas']['RefreshSkipped'];
/** Outcome in KLS store mode. */
export type RefreshAccepted = components['schemas']['RefreshAccepted'];


/**
 * Checks the scope's arguments (400 when the scope's name is missing, 404 for an unknown pack or tenant, 409 for
 * an ambiguous slug) and that the caller's tenants cover it (403: `all` needs every tenant, `pack` the whole
 * pack; a pack or tenant the caller cannot see is unknown). Local mode answers `skipped`; store mode invalidates the cached files in scope and syncs
 * them with the store, answering at once (`started`) or, with `wait`, when done (`completed`), and tells every other
 * instance on a PostgreSQL app database to do the same (`reach`).
 */
export async function refresh(request: RefreshRequest, deps: { tenants: Tenants; store: KlsStore | null; klsMode: 'local' | 'store' }): Promise<RefreshAnswer> {
  const scope = request.scope ?? 'all';
  let target: SyncScope = { kind: 'all' };
  let tenantId: string | undefined;
  if (scope === 'all' && !deps.tenants.scope.everything) {
    throw forbidden('scope all refreshes every tenant; it needs "*" in the token\'s tenants claim');
  }
  if (scope === 'pack') {
    if (request.pack === undefined) throw invalidRequest([{ in: 'query', name: 'pack', message: 'is required when scope is pack' }]);
    if (!deps.tenants.list().some((t) => t.pack === request.pack)) throw new Problem('not-found', `unknown pack "${request.pack}"`);
    if (!deps.tenants.scope.coversPack(request.pack)) throw forbidden(`scope pack refreshes the whole pack; it needs "${request.pack}.*" in the token's tenants claim`);
    target = { kind: 'pack', pack: request.pack };
  }
  if (scope === 'tenant') {
    if (request.tenant === undefined) throw invalidRequest([{ in: 'query', name: 'tenant', message: 'is required when scope is tenant' }]);
    const entry = deps.tenants.resolve(request.tenant, { in: 'query', name: 'tenant' });
    target = { kind: 'tenant', pack: entry.pack, slug: entry.slug };
    tenantId = entry.compositeId;
  }
  if (deps.store === null) {
    return { body: { status: 'skipped', reason: `not in KLS store mode (KLS_MODE=${deps.klsMode}): tenant files are read from KLS_DIR as they are` }, reach: null };
  }
  const outcome = await deps.store.refresh(target, request.wait === true);
  const body: RefreshAccepted = {
    status: outcome.status,
    scope,
    invalidated: outcome.invalidated,
    tenants: outcome.tenants,
    ready: outcome.ready,
  };
  if (target.kind === 'pack') body.pack = target.pack;
  if (tenantId !== undefined) body.tenant = tenantId;
  if (outcome.error !== null) body.error = outcome.error;
  return { body, reach: outcome.reach };
}
