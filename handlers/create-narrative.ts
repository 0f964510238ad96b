import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** POST /api/explain-narrative: 3 to 4 sentences on a finding, written by the language model. */
export async function createNarrative(input: Input<'createNarrative'>, deps: Deps): Promise<Result<'createNarrative'>> {
  // Request validation (400) has run; a missing key is 503 before any tenant lookup or enrichment.
  if (deps.narratives === null) {
    throw new Problem('service-unavailable', 'The language-model API key is not configured on this server.');
  }
  const { tenant, finding } = input.body;
  const locale = input.body.locale ?? 'en';
  const entry = deps.tenants.resolve(tenant, { in: 'body', name: 'tenant' });
  const written = await deps.narratives.write(await deps.tenants.lease(entry), { ...finding, time_bucket: finding.time_bucket ?? null }, locale);
  // what went to the language-model API, for the audit line: the Gold rows in the prompt
  const auditDetails = { probe_id: finding.probe_id, entity_type: finding.entity_type, entity_id: finding.entity_id, rows: written.rows, model: written.ok ? written.model : null };
  if (!written.ok) throw new Problem('bad-gateway', written.message, { auditDetails });
  return { status: 200, body: { narrative: written.narrative, model: written.model }, auditDetails };
}
