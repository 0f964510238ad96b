import { isMissing } from '../src/common/missing.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { problemResult } from '../src/operations/results.js';

/** GET /{tenant}/taxonomies/cardinality/detail: counts, coverage ratios and relation of taxonomies a and b. */
export async function getTaxonomyCardinality(input: Input<'getTaxonomyCardinality'>, deps: Deps): Promise<Result<'getTaxonomyCardinality'>> {
  const detail = await deps.taxonomies.cardinality(deps.tenants.resolve(input.path.tenant), input.query);
  if (isMissing(detail)) return problemResult('not-found', detail.missing);
  return { status: 200, body: detail };
}
