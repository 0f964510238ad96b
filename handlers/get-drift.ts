import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/drift: the build commit against the remote reference, cached per tenant and file generation. */
export async function getDrift(input: Input<'getDrift'>, deps: Deps): Promise<Result<'getDrift'>> {
  const { result, maxAgeSeconds } = await deps.drift.check(deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' }));
  return { status: 200, body: result, headers: { 'Cache-Control': `private, max-age=${maxAgeSeconds}` } };
}
