import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { problemResult } from '../src/operations/results.js';
import { listSharedMembers as findShared } from '../src/taxonomies/cardinality.js';
import { toPairQuery } from '../src/taxonomies/pair-query.js';
import { isMissing } from '../src/taxonomies/taxonomy-rows.js';

/** GET /{tenant}/taxonomies/cardinality/members: members shared by taxonomies a and b. */
export async function listSharedMembers(input: Input<'listSharedMembers'>, deps: Deps): Promise<Result<'listSharedMembers'>> {
  const shared = await deps.tenants.withKls(input.path.tenant, (db) => findShared(db, toPairQuery(input.query)));
  if (isMissing(shared)) return problemResult('not-found', shared.missing);
  return { status: 200, body: shared };
}
