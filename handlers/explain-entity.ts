import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/explain: source records of an entity, grouped by Gold table (level 2). */
export async function explainEntity(input: Input<'explainEntity'>, deps: Deps): Promise<Result<'explainEntity'>> {
  const { tenant, entity_id: entityId } = input.query;
  const entityType = input.query.entity_type ?? null;
  const timeBucket = input.query.time_bucket ?? null;
  const locale = input.query.locale ?? 'en';
  const query = { entityType, entityId, timeBucket, locale };
  const groups = await deps.tenants.withKls(tenant, (db, entry) => deps.explanations.entity(db, entry.compositeId, query));
  return { status: 200, body: { entity_type: entityType, entity_id: entityId, time_bucket: timeBucket, groups } };
}
