import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { invalidRequest } from '../src/common/problems.js';

/** GET /api/jumpbar: search (default), tenant list, or severity summary. */
export async function getJumpbar(input: Input<'getJumpbar'>, deps: Deps): Promise<Result<'getJumpbar'>> {
  const mode = input.query.mode ?? 'search';
  if (mode === 'tenants') return { status: 200, body: { tenants: deps.jumpbar.tenants(deps.tenants) } };
  if (input.query.tenant === undefined) throw invalidRequest([{ in: 'query', name: 'tenant', message: `is required when mode is ${mode}` }]);
  const entry = deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  if (mode === 'summary') return { status: 200, body: { summary: await deps.jumpbar.summary(entry) } };
  const q = input.query.q;
  if (q === undefined) throw invalidRequest([{ in: 'query', name: 'q', message: 'is required when mode is search' }]);
  // JSON text made from hits checked against SearchItem when the index was built (EncodedJson)
  return { status: 200, body: await deps.jumpbar.search(entry, q) };
}
