import type { Deps } from '../deps.js';
import { HttpProblem, invalidRequest } from '../http/errors.js';

/** The refresh request, from the query or the JSON body (body values win). */
export interface RefreshRequest {
  scope?: 'all' | 'pack' | 'tenant';
  pack?: string;
  tenant?: string;
  wait?: boolean;
}

/** Outcome outside KLS store mode. */
export interface RefreshSkipped {
  status: 'skipped';
  reason: string;
}

/**
 * Checks the scope's arguments (400 when the scope's name is missing, 404 for an unknown pack or tenant) and,
 * in local mode, answers `skipped`: there is no object store to download from.
 */
export function refresh(request: RefreshRequest, deps: Deps): RefreshSkipped {
  const scope = request.scope ?? 'all';
  if (scope === 'pack') {
    if (request.pack === undefined) throw invalidRequest([{ in: 'query', name: 'pack', message: 'is required when scope is pack' }]);
    if (!deps.tenants.list().some((t) => t.pack === request.pack)) throw new HttpProblem('not-found', `unknown pack "${request.pack}"`);
  }
  if (scope === 'tenant') {
    if (request.tenant === undefined) throw invalidRequest([{ in: 'query', name: 'tenant', message: 'is required when scope is tenant' }]);
    deps.tenants.resolve(request.tenant, { in: 'query', name: 'tenant' });
  }
  return { status: 'skipped', reason: `not in KLS store mode (KLS_MODE=${deps.config.klsMode}): tenant files are read from ${'KLS_DIR'} as they are` };
}
