import type Database from 'better-sqlite3';
import type { MalformedFinding } from '../ports/lineage.js';
import { columnsOf, hasTable } from '../search/kls-schema.js';

/** Entity types a finding may name (the contract's EntityType). */
export const ENTITY_TYPES = ['Material', 'Case', 'BillingEvent', 'CostCentre'] as const;
/** Severity levels (the contract's Severity). */
export const SEVERITIES = ['high', 'medium', 'low'] as const;
/** Definition IDs a finding's probe_id may hold (the contract's ProbeId). */
const PROBE_ID = /^(probe_|assessment_|hyp_|diag_)[a-z][a-z0-9_]*$/;

/** A stored finding as the API sends it (the contract's FindingRecord). */
export interface FindingRecord {
  finding_id: string;
  probe_id: string;
  entity_type: (typeof ENTITY_TYPES)[number];
  entity_id: string;
  time_bucket: string | null;
  severity: (typeof SEVERITIES)[number];
  money_at_risk: number;
  evidence: unknown;
}


const FINDING_COLUMNS = ['finding_id', 'probe_id', 'entity_type', 'entity_id', 'time_bucket', 'severity', 'money_at_risk', 'evidence'] as const;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])/;

/** The finding `findingId` of the tenant's `findings` table; null when the table or the row is missing. */
export function readFinding(db: Database.Database, findingId: string): FindingRecord | MalformedFinding | null {
  if (!hasTable(db, 'findings')) return null;
  const present = new Set(columnsOf(db, 'findings'));
  if (!present.has('finding_id')) return null;
  const select = FINDING_COLUMNS.map((column) => (present.has(column) ? `"${column}"` : `NULL AS ${column}`)).join(', ');
  const row = db.prepare(`SELECT ${select} FROM findings WHERE finding_id = ? LIMIT 1`).get(findingId) as Record<string, unknown> | undefined;
  return row === undefined ? null : toApiFinding(row);
}

/** Maps a `findings` row: severity in lower case, month cut to `YYYY-MM`, evidence parsed from JSON. */
export function toApiFinding(row: Record<string, unknown>): FindingRecord | MalformedFinding {
  const text = (column: string): string => (row[column] === null || row[column] === undefined ? '' : String(row[column]));
  const month = MONTH.exec(text('time_bucket'));
  const money = Number(row['money_at_risk']);
  const entityType = ENTITY_TYPES.find((type) => type === text('entity_type'));
  const severity = SEVERITIES.find((level) => level === text('severity').toLowerCase());
  if (!PROBE_ID.test(text('probe_id'))) return { malformed: `probe_id "${text('probe_id')}" is not a definition ID` };
  if (entityType === undefined) return { malformed: `entity_type "${text('entity_type')}" is not one of ${ENTITY_TYPES.join(', ')}` };
  if (severity === undefined) return { malformed: `severity "${text('severity')}" is not one of ${SEVERITIES.join(', ')}` };
  return {
    finding_id: text('finding_id'),
    probe_id: text('probe_id'),
    entity_type: entityType,
    entity_id: text('entity_id'),
    time_bucket: month === null ? null : month[0],
    severity,
    money_at_risk: Number.isFinite(money) ? money : 0,
    evidence: parseEvidence(row['evidence']),
  };
}

function parseEvidence(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
