import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { problemResult } from '../src/operations/results.js';
import { getTaxonomyFanout as computeFanout } from '../src/taxonomies/cardinality.js';
import { toPairQuery } from '../src/taxonomies/pair-query.js';
import { isMissing } from '../src/taxonomies/taxonomy-rows.js';

/** GET /{tenant}/taxonomies/cardinality/fanout: distribution of how many nodes of b each node of a maps to. */
export async function getTaxonomyFanout(input: Input<'getTaxonomyFanout'>, deps: Deps): Promise<Result<'getTaxonomyFanout'>> {
  const fanout = await deps.tenants.withKls(input.path.tenant, (db) => computeFanout(db, toPairQuery(input.query)));
  if (isMissing(fanout)) return problemResult('not-found', fanout.missing);
  return { status: 200, body: fanout };
}
