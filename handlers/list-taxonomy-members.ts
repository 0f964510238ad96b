import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';
import { problemResult } from '../src/operations/results.js';
import { listTaxonomyMembers as findMembers } from '../src/taxonomies/members.js';
import { isMissing } from '../src/taxonomies/taxonomy-rows.js';

/** GET /{tenant}/taxonomies/{taxonomy_id}/members: all members, those of a node, or those matching `q`. */
export async function listTaxonomyMembers(input: Input<'listTaxonomyMembers'>, deps: Deps): Promise<Result<'listTaxonomyMembers'>> {
  const { node_id: nodeId, q, locale } = input.query;
  const members = await deps.tenants.withKls(input.path.tenant, (db) =>
    findMembers(db, {
      taxonomyId: input.path.taxonomy_id,
      locale: locale ?? 'en',
      ...(nodeId === undefined ? {} : { nodeId }),
      ...(q === undefined ? {} : { q }),
    }),
  );
  if (isMissing(members)) return problemResult('not-found', members.missing);
  return { status: 200, body: members };
}
