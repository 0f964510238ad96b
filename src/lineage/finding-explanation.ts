import type Database from 'better-sqlite3';
import type { Locale } from '../search/localized.js';
import type { EntityQuery, ExplainGroup, MalformedFinding } from '../ports/lineage.js';
import { readFinding, type FindingRecord } from './finding.js';
import type { AfsDefinitions } from '../signals/afs-store.js';
import { findSignalSummary, type SignalSummary } from './signal-summary.js';

/** Levels 1 and 2 of a finding's explanation. */
export interface FindingExplanation {
  finding: FindingRecord;
  signal: SignalSummary | null;
  groups: ExplainGroup[];
}

/**
 * The finding, its signal's summary and its entity's source records (as `sources` finds them: explainOnReaders);
 * null when unknown, MalformedFinding when the stored row breaks the KLS contract.
 */
export async function explainFindingRecords(
  db: Database.Database,
  definitions: Pick<AfsDefinitions, 'read'>,
  findingId: string,
  locale: Locale,
  sources: (query: EntityQuery) => Promise<ExplainGroup[]>,
): Promise<FindingExplanation | MalformedFinding | null> {
  const finding = readFinding(db, findingId);
  if (finding === null || 'malformed' in finding) return finding;
  const groups = await sources({ entityType: finding.entity_type, entityId: finding.entity_id, timeBucket: finding.time_bucket, locale });
  const signal = await findSignalSummary(db, definitions, finding.probe_id);
  return { finding, signal, groups };
}
