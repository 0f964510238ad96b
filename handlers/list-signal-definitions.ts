import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { strongEtag } from '../src/common/entity-tags.js';
import { taggedHeaders } from '../src/operations/results.js';

/**
 * GET /api/probe-builder/list: every AFS definition, signals marked applicable to the tenant's Gold tables. Tagged by
 * a hash of the answer (what the files and the tenant's schema say, alike on every instance); 304 by the adapter.
 */
export async function listSignalDefinitions(input: Input<'listSignalDefinitions'>, deps: Deps): Promise<Result<'listSignalDefinitions'>> {
  const body = { probes: await deps.signals.list(deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' })) };
  return { status: 200, body, headers: taggedHeaders(strongEtag(JSON.stringify(body))) };
}
