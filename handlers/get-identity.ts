import type { Deps } from '../src/deps.js';
import type { Input, Result } from '../src/http/contract.js';

/** GET /api/identity: git user name and email, the tenant's work tree first. */
export async function getIdentity(input: Input<'getIdentity'>, deps: Deps): Promise<Result<'getIdentity'>> {
  const tenant = input.query.tenant === undefined ? null : deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  const identity = await deps.identity(tenant);
  return { status: 200, body: { name: identity.name, email: identity.email } };
}
