import { IDENTIFIER_PATTERN, MAX_IDENTIFIER_LENGTH, type CheckedCondition, type CheckedSignal, type ContractLiteral } from './definition-rules.js';

/** The columns of a compiled signal's rows, in order (docs/signal-language.md). */
export const FINDING_COLUMNS = ['probe_id', 'entity_type', 'entity_id', 'time_bucket', 'severity', 'money_at_risk', 'evidence'] as const;

/**
 * Compiles a checked signal to one SQLite SELECT yielding its findings. Identifiers are re-checked and
 * double-quoted, values are emitted as quoted literals, so no definition can change the statement's shape.
 */
export function compileSignalSql(signal: CheckedSignal): string {
  const cases = signal.severity
    .map((rule) => (rule.when ? `WHEN ${conditionSql(rule.when)} THEN ${textLiteral(rule.level)}` : `ELSE ${textLiteral(rule.level)}`))
    .join(' ');
  // CASE needs at least one WHEN: a single catch-all rule is just its level
  const severity = signal.severity.some((rule) => rule.when) ? `CASE ${cases} END` : textLiteral(signal.severity.at(-1)?.level ?? 'low');
  const evidence = signal.evidence.map((column) => `${textLiteral(column)}, ${identifier(column)}`).join(', ');
  const select = [
    `${textLiteral(signal.probe_id)} AS "probe_id"`,
    `${textLiteral(signal.entity_type)} AS "entity_type"`,
    `${identifier(signal.entity_id)} AS "entity_id"`,
    `${signal.time_bucket === undefined ? 'NULL' : `substr(${identifier(signal.time_bucket)}, 1, 7)`} AS "time_bucket"`,
    `${severity} AS "severity"`,
    `${signal.money_at_risk === undefined ? '0' : `coalesce(${identifier(signal.money_at_risk)}, 0)`} AS "money_at_risk"`,
    `json_object(${evidence}) AS "evidence"`,
  ];
  const where = signal.where.length === 0 ? '' : ` WHERE ${signal.where.map(conditionSql).join(' AND ')}`;
  return `SELECT ${select.join(', ')} FROM ${identifier(signal.source)}${where} ORDER BY 3`;
}

/** A condition as SQL: `"column" op literal`; NULL never satisfies a comparison. */
export function conditionSql(condition: CheckedCondition): string {
  const column = identifier(condition.column);
  switch (condition.op) {
    case 'is_null':
      return `${column} IS NULL`;
    case 'not_null':
      return `${column} IS NOT NULL`;
    case 'in':
    case 'not_in': {
      const values = Array.isArray(condition.value) ? condition.value : [condition.value as ContractLiteral];
      return `${column} ${condition.op === 'in' ? 'IN' : 'NOT IN'} (${values.map(literalSql).join(', ')})`;
    }
    case 'like':
      return `${column} LIKE ${literalSql(condition.value as ContractLiteral)}`;
    case '=':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return `${column} ${condition.op} ${literalSql(condition.value as ContractLiteral)}`;
    default:
      throw new Error(`unknown operator ${JSON.stringify(condition.op)}`);
  }
}

/** A double-quoted identifier; throws unless it matches ^[a-z_][a-z0-9_]*$ (the checker guarantees it). */
export function identifier(name: string): string {
  if (typeof name !== 'string' || name.length > MAX_IDENTIFIER_LENGTH || !IDENTIFIER_PATTERN.test(name)) throw new Error('not an identifier');
  return `"${name}"`;
}

/** A SQL literal: text single-quoted with quotes doubled, finite numbers in plain notation, booleans 1/0. */
export function literalSql(value: ContractLiteral): string {
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('not a finite number');
    // parenthesised so a negative number stays one operand; String() gives digits, '.', 'e', '+', '-' only
    return value < 0 || Object.is(value, -0) ? `(${String(value)})` : String(value);
  }
  return textLiteral(value);
}

/** A text literal; NUL is refused because SQLite would end the statement text there. */
export function textLiteral(value: string): string {
  if (typeof value !== 'string' || value.includes('\u0000')) throw new Error('not a literal text');
  return `'${value.replace(/'/g, "''")}'`;
}
