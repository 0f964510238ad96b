import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { getMemberMappings as findMappings } from '../src/taxonomies/member-mappings.js';

/** GET /{tenant}/taxonomies/cardinality/member: every taxonomy node the member `id` is attached to. */
export async function getMemberMappings(input: Input<'getMemberMappings'>, deps: Deps): Promise<Result<'getMemberMappings'>> {
  const mappings = await deps.tenants.withKls(input.path.tenant, (db) => findMappings(db, input.query.id));
  return { status: 200, body: mappings };
}
