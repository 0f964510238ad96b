import type { Condition, Literal, Severity, SignalDefinition } from './signals.js';
import type { Row, SqlType, SqlValue, TableSpec } from './sqlite.js';

/** A row of the `findings` table. */
export interface FindingRow {
  finding_id: string;
  probe_id: string;
  entity_type: string;
  entity_id: SqlValue;
  time_bucket: string | null;
  severity: Severity;
  money_at_risk: number;
  evidence: string;
}

/** A table to evaluate signals against: its definition and rows. */
export interface EvaluatedTable {
  spec: TableSpec;
  rows: readonly Row[];
}

/**
 * Findings of all signals, numbered F-000001.. in signal order, then by entity_id (SQLite BINARY
 * order; ties keep table row order). Semantics follow SQLite, so a compiled SELECT yields the same rows.
 */
export function computeFindings(signals: readonly SignalDefinition[], tables: readonly EvaluatedTable[]): FindingRow[] {
  const findings: FindingRow[] = [];
  for (const signal of signals) {
    const table = tables.find((candidate) => candidate.spec.name === signal.contract.source);
    if (!table) throw new Error(`${signal.probe_id}: unknown source table ${signal.contract.source}`);
    for (const finding of evaluateSignal(signal, table)) {
      findings.push({ ...finding, finding_id: `F-${String(findings.length + 1).padStart(6, '0')}` });
    }
  }
  return findings;
}

/** The findings of one signal (without finding_id), ordered by entity_id. */
export function evaluateSignal(signal: SignalDefinition, table: EvaluatedTable): Omit<FindingRow, 'finding_id'>[] {
  const { contract } = signal;
  const types = new Map(table.spec.columns.map((column) => [column.name, column.type]));
  const typeOf = (column: string): SqlType => {
    const type = types.get(column);
    if (!type) throw new Error(`${signal.probe_id}: ${table.spec.name} has no column ${column}`);
    return type;
  };
  const holds = (row: Row, condition: Condition): boolean => matchesCondition(row[condition.column] ?? null, typeOf(condition.column), condition);
  const matching = table.rows.filter((row) => (contract.where ?? []).every((condition) => holds(row, condition)));
  const entityOf = (row: Row): SqlValue => row[contract.entity_id] ?? null;
  const ordered = matching
    .map((row, index) => ({ row, index }))
    .sort((a, b) => compareValues(entityOf(a.row), entityOf(b.row)) || a.index - b.index)
    .map((entry) => entry.row);
  return ordered.map((row) => {
    const rule = contract.severity.find((candidate) => !candidate.when || holds(row, candidate.when));
    if (!rule) throw new Error(`${signal.probe_id}: no severity rule matched`);
    const bucketValue = contract.time_bucket ? row[contract.time_bucket] ?? null : null;
    const money = contract.money_at_risk ? row[contract.money_at_risk] ?? null : null;
    return {
      probe_id: signal.probe_id,
      entity_type: contract.entity_type,
      entity_id: entityOf(row),
      time_bucket: bucketValue === null || !contract.time_bucket ? null : [...sqliteText(bucketValue, typeOf(contract.time_bucket))].slice(0, 7).join(''),
      severity: rule.level,
      money_at_risk: typeof money === 'number' ? money : money === null ? 0 : Number(money),
      evidence: evidenceJson(row, contract.evidence ?? [], typeOf),
    };
  });
}

/** Whether a stored value (of a column with affinity `type`) satisfies a condition; NULL never satisfies a comparison. */
export function matchesCondition(value: SqlValue, type: SqlType, condition: Condition): boolean {
  const { op } = condition;
  if (op === 'is_null') return value === null;
  if (op === 'not_null') return value !== null;
  if (op === 'in' || op === 'not_in') {
    const list = Array.isArray(condition.value) ? condition.value : [condition.value as Literal];
    if (list.length === 0) return op === 'not_in';
    if (value === null) return false;
    const found = list.some((item) => compareToLiteral(value, type, item) === 0);
    return op === 'in' ? found : !found;
  }
  if (value === null || condition.value === undefined || Array.isArray(condition.value)) return false;
  const literal = condition.value as Literal;
  if (op === 'like') return sqliteLike(sqliteText(value, type), String(toSqlLiteral(literal)));
  const order = compareToLiteral(value, type, literal);
  switch (op) {
    case '=': return order === 0;
    case '!=': return order !== 0;
    case '<': return order < 0;
    case '<=': return order <= 0;
    case '>': return order > 0;
    case '>=': return order >= 0;
  }
}

/** SQLite LIKE without ESCAPE: `%` any run, `_` one character, case-insensitive for ASCII letters only. */
export function sqliteLike(text: string, pattern: string): boolean {
  const body = [...foldAscii(pattern)]
    .map((char) => (char === '%' ? '[\\s\\S]*' : char === '_' ? '[\\s\\S]' : char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'u').test(foldAscii(text));
}

function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (char) => char.toLowerCase());
}

function toSqlLiteral(literal: Literal): string | number {
  return typeof literal === 'boolean' ? (literal ? 1 : 0) : literal;
}

/** Compares a stored value with a literal after SQLite's column-affinity conversion of the literal. */
function compareToLiteral(value: SqlValue, type: SqlType, literal: Literal): number {
  let right: string | number = toSqlLiteral(literal);
  if (type === 'TEXT' && typeof right === 'number') right = sqliteNumberText(right, Number.isInteger(right) ? 'INTEGER' : 'REAL');
  if ((type === 'INTEGER' || type === 'REAL') && typeof right === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(right)) {
    right = Number(right);
  }
  return compareValues(value, right);
}

/** SQLite's ordering of stored values: NULL < numbers < text (BINARY, by UTF-8 bytes) < blobs. */
export function compareValues(left: SqlValue, right: SqlValue): number {
  const rank = (value: SqlValue): number => (value === null ? 0 : typeof value === 'number' ? 1 : typeof value === 'string' ? 2 : 3);
  if (rank(left) !== rank(right)) return rank(left) - rank(right);
  if (typeof left === 'number' && typeof right === 'number') return left < right ? -1 : left > right ? 1 : 0;
  if (typeof left === 'string' && typeof right === 'string') return Buffer.compare(Buffer.from(left), Buffer.from(right));
  if (Buffer.isBuffer(left) && Buffer.isBuffer(right)) return Buffer.compare(left, right);
  return 0;
}

/** A value as SQLite renders it as text (REAL whole numbers get `.0`). */
export function sqliteText(value: SqlValue, type: SqlType): string {
  if (typeof value === 'number') return sqliteNumberText(value, type === 'REAL' ? 'REAL' : Number.isInteger(value) ? 'INTEGER' : 'REAL');
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return value ?? '';
}

function sqliteNumberText(value: number, type: 'INTEGER' | 'REAL'): string {
  if (type === 'INTEGER') return String(value);
  const magnitude = Math.abs(value);
  if (value === 0) return '0.0';
  if (magnitude >= 1e-4 && magnitude < 1e17) {
    const text = String(value);
    return Number.isInteger(value) ? `${text}.0` : text;
  }
  const [mantissa = '0', exponent = '0'] = value.toExponential().split('e');
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
}

/** The JSON text SQLite's json_object() gives for the listed columns, in order; `{}` when none. */
export function evidenceJson(row: Row, columns: readonly string[], typeOf: (column: string) => SqlType): string {
  const members = columns.map((column) => {
    const value = row[column] ?? null;
    const json = value === null ? 'null'
      : typeof value === 'number' ? sqliteText(value, typeOf(column))
      : JSON.stringify(sqliteText(value, typeOf(column)));
    return `${JSON.stringify(column)}:${json}`;
  });
  return `{${members.join(',')}}`;
}
