import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /{tenant}/taxonomies/cardinality/members: members shared by taxonomies a and b. */
export async function listSharedMembers(input: Input<'listSharedMembers'>, deps: Deps): Promise<Result<'listSharedMembers'>> {
  const shared = await deps.taxonomies.shared(deps.tenants.resolve(input.path.tenant), input.query);
  if (isMissing(shared)) throw new Problem('not-found', shared.missing);
  return { status: 200, body: shared };
}
