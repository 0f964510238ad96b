import type { Deps } from '../src/ports.js';
import type { Input, Result } from '../src/http/contract.js';
import { problemResult } from '../src/http/results.js';
import { readEntityRecords, readSignalFromAfs, readSignalFromKls, type EntityRecords, type SignalInfo } from '../src/narrative/enrichment.js';
import { buildNarrativePrompt } from '../src/narrative/prompt.js';
import { firstSentences } from '../src/narrative/sentences.js';

/** POST /api/explain-narrative: 3 to 4 sentences on a finding, written by the language model. */
export async function createNarrative(input: Input<'createNarrative'>, deps: Deps): Promise<Result<'createNarrative'>> {
  // Request validation (400) has run; a missing key is 503 before any tenant lookup or enrichment.
  if (deps.languageModel === null) {
    return problemResult('service-unavailable', 'The language-model API key is not configured on this server.');
  }
  const { tenant, finding } = input.body;
  const locale = input.body.locale ?? 'en';
  const entry = deps.tenants.resolve(tenant, { in: 'body', name: 'tenant' });
  const lease = deps.tenants.lease(entry);
  let records: EntityRecords[];
  let signal: SignalInfo | null;
  try {
    records = readEntityRecords(lease.db, { entityType: finding.entity_type, entityId: finding.entity_id, timeBucket: finding.time_bucket ?? null });
    signal = readSignalFromKls(lease.db, finding.probe_id);
  } finally {
    lease.release();
  }
  signal ??= await readSignalFromAfs(deps.config.afsDir, deps.signalTools.definitions, finding.probe_id);
  const prompt = buildNarrativePrompt({ ...finding, time_bucket: finding.time_bucket ?? null }, signal, records, locale);
  const written = await deps.languageModel.write(prompt);
  deps.metrics.narrativeCalls.inc({ outcome: written.ok ? 'ok' : written.failure });
  // what went to the language-model API, for the audit line: the Gold rows in the prompt
  const rows = records.reduce((sum, group) => sum + group.rows.length, 0);
  const audit = { probe_id: finding.probe_id, entity_type: finding.entity_type, entity_id: finding.entity_id, rows, model: written.ok ? written.model : null };
  if (!written.ok) return { ...problemResult('bad-gateway', written.message), audit };
  return { status: 200, body: { narrative: firstSentences(written.text, locale), model: written.model }, audit };
}
