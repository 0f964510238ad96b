import { isScalar, isSeq, type Node, type YAMLMap } from 'yaml';
import {
  ENTITY_TYPES,
  IDENTIFIER_PATTERN,
  LIMITS,
  OPERATORS,
  SEVERITY_LEVELS,
  type CheckedCondition,
  type CheckedSignal,
  type ContractLiteral,
  type EntityType,
  type GoldSchema,
  type Operator,
  type SeverityLevel,
} from './definition-rules.js';
import { truncate, type YamlView } from './yaml-view.js';

/** A checked contract and where each table or column it names sits in the document. */
export interface CheckedContract {
  signal: Omit<CheckedSignal, 'probe_id'>;
  source: { name: string; path: string; node: Node | null };
  columns: { name: string; path: string; node: Node | null }[];
}

const CONTRACT_KEYS = ['entity_type', 'source', 'entity_id', 'time_bucket', 'money_at_risk', 'where', 'severity', 'evidence'] as const;
const CONDITION_KEYS = ['column', 'op', 'value'] as const;
const NO_VALUE: readonly Operator[] = ['is_null', 'not_null'];
const LIST_VALUE: readonly Operator[] = ['in', 'not_in'];
const GOLD_TABLE = /^gold_[a-z0-9_]*$/;

/** Checks a signal's contract (docs/signal-language.md); null when it has errors. */
export function checkSignalContract(view: YamlView, contract: YAMLMap): CheckedContract | null {
  const before = view.errors.length;
  const members = view.members('contract', contract, CONTRACT_KEYS);
  const columns: CheckedContract['columns'] = [];
  const column = (path: string, required: boolean): string | null => {
    const node = view.value(members.get(path.split('.')[1] ?? ''));
    const name = view.identifier(path, node, contract, required, IDENTIFIER_PATTERN, 'a column name (^[a-z_][a-z0-9_]*$)');
    if (name !== null) columns.push({ name, path, node });
    return name;
  };

  const entityNode = view.value(members.get('entity_type'));
  const entityType = view.text('contract.entity_type', entityNode, contract, true);
  if (entityType !== null && !(ENTITY_TYPES as readonly string[]).includes(entityType)) {
    view.fail('contract.entity_type', [entityNode], `unknown entity type "${truncate(entityType)}"; allowed: ${ENTITY_TYPES.join(', ')}`);
  }
  const sourceNode = view.value(members.get('source'));
  const source = view.identifier('contract.source', sourceNode, contract, true, GOLD_TABLE, 'a Gold table name (^gold_[a-z0-9_]*$)');
  const entityId = column('contract.entity_id', true);
  const timeBucket = column('contract.time_bucket', false);
  const money = column('contract.money_at_risk', false);

  const where: CheckedCondition[] = [];
  const whereNode = view.value(members.get('where'));
  if (whereNode !== null) {
    const list = view.seq('contract.where', whereNode, contract, 'a list of conditions');
    if (list !== null && list.items.length > LIMITS.conditions) view.fail('contract.where', [list], `has more than ${LIMITS.conditions} conditions`);
    else list?.items.forEach((item, index) => {
      const condition = checkCondition(view, `contract.where[${index}]`, view.resolve(item), list, columns);
      if (condition !== null) where.push(condition);
    });
  }

  const severity: { level: SeverityLevel; when?: CheckedCondition }[] = [];
  const severityNode = view.value(members.get('severity'));
  const rules = view.seq('contract.severity', severityNode, contract, 'a list of severity rules');
  if (rules !== null) {
    if (rules.items.length === 0) view.fail('contract.severity', [rules], 'needs at least one rule; the last one has no `when`');
    else if (rules.items.length > LIMITS.severityRules) view.fail('contract.severity', [rules], `has more than ${LIMITS.severityRules} rules`);
    else rules.items.forEach((item, index) => {
      const path = `contract.severity[${index}]`;
      const rule = view.map(path, view.resolve(item), rules, 'a mapping with level and when');
      if (rule === null) return;
      const ruleMembers = view.members(path, rule, ['level', 'when']);
      const levelNode = view.value(ruleMembers.get('level'));
      const level = view.text(`${path}.level`, levelNode, rule, true);
      if (level !== null && !(SEVERITY_LEVELS as readonly string[]).includes(level)) {
        view.fail(`${path}.level`, [levelNode], `unknown level "${truncate(level)}"; allowed: ${SEVERITY_LEVELS.join(', ')}`);
      }
      const whenNode = view.value(ruleMembers.get('when'));
      const last = index === rules.items.length - 1;
      if (last && whenNode !== null) view.fail(`${path}.when`, [whenNode], 'the last severity rule must not have `when` (it catches every other row)');
      if (!last && whenNode === null) view.fail(`${path}.when`, [rule], 'is required on every severity rule but the last');
      const when = whenNode === null || last ? undefined : checkCondition(view, `${path}.when`, whenNode, rule, columns);
      if (level !== null) severity.push(when ? { level: level as SeverityLevel, when } : { level: level as SeverityLevel });
    });
  }

  const evidence: string[] = [];
  const evidenceNode = view.value(members.get('evidence'));
  if (evidenceNode !== null) {
    const list = view.seq('contract.evidence', evidenceNode, contract, 'a list of column names');
    if (list !== null && list.items.length > LIMITS.evidenceColumns) view.fail('contract.evidence', [list], `has more than ${LIMITS.evidenceColumns} columns`);
    else list?.items.forEach((item, index) => {
      const path = `contract.evidence[${index}]`;
      const node = view.resolve(item);
      const name = view.identifier(path, node, list, true, IDENTIFIER_PATTERN, 'a column name (^[a-z_][a-z0-9_]*$)');
      if (name === null) return;
      if (evidence.includes(name)) view.fail(path, [node], `column "${name}" is listed twice`);
      evidence.push(name);
      columns.push({ name, path, node });
    });
  }

  if (view.errors.length > before || entityType === null || source === null || entityId === null) return null;
  const signal: CheckedContract['signal'] = { entity_type: entityType as EntityType, source, entity_id: entityId, where, severity, evidence };
  if (timeBucket !== null) signal.time_bucket = timeBucket;
  if (money !== null) signal.money_at_risk = money;
  return { signal, source: { name: source, path: 'contract.source', node: sourceNode }, columns };
}

/** With a tenant: the source must be one of its Gold tables and every column must exist there. */
export function checkGoldReferences(view: YamlView, gold: GoldSchema, contract: CheckedContract): void {
  const tableColumns = Object.hasOwn(gold.tables, contract.source.name) ? gold.tables[contract.source.name] : undefined;
  if (tableColumns === undefined) {
    view.fail(contract.source.path, [contract.source.node], `"${contract.source.name}" is not a Gold table of tenant ${gold.tenant}`);
    return;
  }
  for (const column of contract.columns) {
    if (!tableColumns.includes(column.name)) {
      view.fail(column.path, [column.node], `column "${column.name}" does not exist in ${contract.source.name} of tenant ${gold.tenant}`);
    }
  }
}

function checkCondition(view: YamlView, path: string, node: Node | null, parent: Node, columns: CheckedContract['columns']): CheckedCondition | null {
  const map = view.map(path, node, parent, 'a mapping with column, op and value');
  if (map === null) return null;
  const before = view.errors.length;
  const members = view.members(path, map, CONDITION_KEYS);
  const columnNode = view.value(members.get('column'));
  const column = view.identifier(`${path}.column`, columnNode, map, true, IDENTIFIER_PATTERN, 'a column name (^[a-z_][a-z0-9_]*$)');
  if (column !== null) columns.push({ name: column, path: `${path}.column`, node: columnNode });
  const opNode = view.value(members.get('op'));
  const opText = view.text(`${path}.op`, opNode, map, true);
  let op: Operator | null = null;
  if (opText !== null) {
    if ((OPERATORS as readonly string[]).includes(opText)) op = opText as Operator;
    else view.fail(`${path}.op`, [opNode], `unknown operator "${truncate(opText)}"; allowed: ${OPERATORS.join(' ')}`);
  }
  const hasValue = members.has('value');
  const valueNode = view.value(members.get('value'));
  let value: CheckedCondition['value'];
  if (op !== null && NO_VALUE.includes(op)) {
    if (hasValue) view.fail(`${path}.value`, [valueNode, map], `must be absent for ${op}`);
  } else if (op !== null && LIST_VALUE.includes(op)) {
    const list = view.seq(`${path}.value`, valueNode, map, `a non-empty list of values for ${op}`);
    if (list !== null) {
      if (list.items.length === 0 || list.items.length > LIMITS.listItems) view.fail(`${path}.value`, [list], `must hold 1 to ${LIMITS.listItems} values`);
      const items = list.items.map((item, index) => literal(view, `${path}.value[${index}]`, view.resolve(item), list));
      if (items.every((item) => item !== null)) value = items as ContractLiteral[];
    }
  } else if (op !== null) {
    const single = literal(view, `${path}.value`, valueNode, map);
    if (single !== null && op === 'like' && typeof single !== 'string') view.fail(`${path}.value`, [valueNode], 'must be a text pattern for like');
    if (single !== null) value = single;
  }
  if (view.errors.length > before || column === null || op === null) return null;
  return value === undefined ? { column, op } : { column, op, value };
}

function literal(view: YamlView, path: string, node: Node | null, parent: Node): ContractLiteral | null {
  if (node === null) {
    view.fail(path, [parent], 'is required (a text, number or boolean)');
    return null;
  }
  if (!isScalar(node) || isSeq(node)) {
    view.fail(path, [node], 'must be a text, number or boolean');
    return null;
  }
  const { value } = node;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) view.fail(path, [node], 'must be a finite number');
    return Number.isFinite(value) ? value : null;
  }
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    if (value.length > LIMITS.stringChars) view.fail(path, [node], `is longer than ${LIMITS.stringChars} characters`);
    else if (value.includes('\u0000')) view.fail(path, [node], 'must not contain a NUL character');
    return value.length > LIMITS.stringChars || value.includes('\u0000') ? null : value;
  }
  view.fail(path, [node], 'must be a text, number or boolean');
  return null;
}
