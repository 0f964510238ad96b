import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /{tenant}/taxonomies/cardinality/detail: counts, coverage ratios and relation of taxonomies a and b. */
export async function getTaxonomyCardinality(input: Input<'getTaxonomyCardinality'>, deps: Deps): Promise<Result<'getTaxonomyCardinality'>> {
  const detail = await deps.taxonomies.cardinality(deps.tenants.resolve(input.path.tenant), input.query);
  if (isMissing(detail)) throw new Problem('not-found', detail.missing);
  return { status: 200, body: detail };
}
