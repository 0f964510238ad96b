import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { problemResult } from '../src/operations/results.js';
import { getTaxonomyCardinality as computeCardinality } from '../src/taxonomies/cardinality.js';
import { toPairQuery } from '../src/taxonomies/pair-query.js';
import { isMissing } from '../src/taxonomies/taxonomy-rows.js';

/** GET /{tenant}/taxonomies/cardinality/detail: counts, coverage ratios and relation of taxonomies a and b. */
export async function getTaxonomyCardinality(input: Input<'getTaxonomyCardinality'>, deps: Deps): Promise<Result<'getTaxonomyCardinality'>> {
  const detail = await deps.tenants.withKls(input.path.tenant, (db) => computeCardinality(db, toPairQuery(input.query)));
  if (isMissing(detail)) return problemResult('not-found', detail.missing);
  return { status: 200, body: detail };
}
