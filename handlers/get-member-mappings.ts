import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /{tenant}/taxonomies/cardinality/member: every taxonomy node the member `id` is attached to. */
export async function getMemberMappings(input: Input<'getMemberMappings'>, deps: Deps): Promise<Result<'getMemberMappings'>> {
  return { status: 200, body: await deps.taxonomies.memberMappings(deps.tenants.resolve(input.path.tenant), input.query.id) };
}
