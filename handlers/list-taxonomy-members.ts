import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /{tenant}/taxonomies/{taxonomy_id}/members: all members, those of a node, or those matching `q`. */
export async function listTaxonomyMembers(input: Input<'listTaxonomyMembers'>, deps: Deps): Promise<Result<'listTaxonomyMembers'>> {
  const { node_id: nodeId, q, locale } = input.query;
  const members = await deps.taxonomies.members(deps.tenants.resolve(input.path.tenant), { taxonomyId: input.path.taxonomy_id, locale: locale ?? 'en', nodeId, q });
  if (isMissing(members)) throw new Problem('not-found', members.missing);
  return { status: 200, body: members };
}
