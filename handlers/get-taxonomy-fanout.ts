import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /{tenant}/taxonomies/cardinality/fanout: distribution of how many nodes of b each node of a maps to. */
export async function getTaxonomyFanout(input: Input<'getTaxonomyFanout'>, deps: Deps): Promise<Result<'getTaxonomyFanout'>> {
  const fanout = await deps.taxonomies.fanout(deps.tenants.resolve(input.path.tenant), input.query);
  if (isMissing(fanout)) throw new Problem('not-found', fanout.missing);
  return { status: 200, body: fanout };
}
