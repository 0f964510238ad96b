import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /api/explain: source records of an entity, grouped by Gold table (level 2). */
export async function explainEntity(input: Input<'explainEntity'>, deps: Deps): Promise<Result<'explainEntity'>> {
  const { tenant, entity_id: entityId } = input.query;
  const entityType = input.query.entity_type ?? null;
  const timeBucket = input.query.time_bucket ?? null;
  const locale = input.query.locale ?? 'en';
  const entry = deps.tenants.resolve(tenant, { in: 'query', name: 'tenant' });
  const groups = await deps.explanations.entity(entry, { entityType, entityId, timeBucket, locale });
  return { status: 200, body: { entity_type: entityType, entity_id: entityId, time_bucket: timeBucket, groups } };
}
