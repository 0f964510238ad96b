import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/**
 * GET /api/identity: the caller. Without sign-in the git user name and email (the tenant's work tree first),
 * every role and every tenant; with sign-in the token's name, email, roles and tenants claim.
 */
export async function getIdentity(input: Input<'getIdentity'>, deps: Deps): Promise<Result<'getIdentity'>> {
  const tenant = input.query.tenant === undefined ? null : deps.tenants.resolve(input.query.tenant, { in: 'query', name: 'tenant' });
  const identity = await deps.identity(tenant);
  const { caller } = input;
  return { status: 200, body: { name: identity.name, email: identity.email, roles: [...caller.roles], tenants: [...caller.scope.entries] } };
}
