import { invalidRequest, type ValidationIssue } from '../common/problems.js';
import type { DimensionColumn, DimensionTable } from './dimension-table.js';

/** Query keys of a column filter: `f.<column>`. */
export const FILTER_KEY = /^f\.([a-z_][a-z0-9_]*)$/;

/** A value of the query parameter `filter`: `<column>:<value>`, split at the first colon. */
export const FILTER_ITEM = /^([a-z_][a-z0-9_]*):(.*)$/s;

/** The query parameter that takes column filters as a list (`filter=active:true`). */
export const FILTER_LIST = 'filter';

/** At most this many values of `filter` (the contract's `maxItems`), and this long a filter value. */
const MAX_FILTER_ITEMS = 64;
const MAX_FILTER_VALUE = 200;

/** An equality filter on one column; `value` null means "empty" (NULL or ''). */
export interface ColumnFilter {
  column: DimensionColumn;
  value: string | number | bigint | null;
}

/** What a dimension export selects, checked against the table's columns. */
export interface ExportOptions {
  q?: string;
  sort?: DimensionColumn;
  order: 'asc' | 'desc';
  filters: ColumnFilter[];
}

/**
 * Reads `q`, `sort`, `order` and the column filters, `f.<column>=<value>` keys and `filter=<column>:<value>` values
 * alike, from the request's query against the table: an unknown column, a value that does not fit the column, a
 * column filtered twice, or any other undeclared key is 400.
 */
export function readExportOptions(query: Readonly<Record<string, unknown>>, table: DimensionTable, declared: readonly string[]): ExportOptions {
  const issues: ValidationIssue[] = [];
  const column = (name: string): DimensionColumn | undefined => table.columns.find((c) => c.name === name);
  const options: ExportOptions = { order: query['order'] === 'desc' ? 'desc' : 'asc', filters: [] };
  if (typeof query['q'] === 'string') options.q = query['q'];
  if (typeof query['sort'] === 'string') {
    options.sort = column(query['sort']);
    if (options.sort === undefined) issues.push({ in: 'query', name: 'sort', message: `is not a column of ${table.entity}; columns: ${columnList(table)}` });
  }
  const filtered = new Set<string>();
  /** One filter of either form; issues go under query name `name`, their messages led by `lead` (`active: `). */
  const addFilter = (name: string, lead: string, columnName: string, raw: string): void => {
    const target = column(columnName);
    if (target === undefined) {
      issues.push({ in: 'query', name, message: `${lead}names no column of ${table.entity}; columns: ${columnList(table)}` });
    } else if (filtered.has(target.name)) {
      issues.push({ in: 'query', name, message: `${lead}filters column ${target.name} a second time (f.${target.name}=… and filter=${target.name}:… are one filter)` });
    } else if (raw.length > MAX_FILTER_VALUE) {
      issues.push({ in: 'query', name, message: `${lead}is longer than ${MAX_FILTER_VALUE} characters` });
    } else {
      filtered.add(target.name);
      const value = filterValue(target, raw);
      if (value === undefined) issues.push({ in: 'query', name, message: `${lead}must be ${expectation(target)}` });
      else options.filters.push({ column: target, value });
    }
  };
  for (const [key, raw] of Object.entries(query)) {
    if (declared.includes(key)) continue;
    const match = FILTER_KEY.exec(key);
    if (match === null) {
      issues.push({ in: 'query', name: key, message: 'is not allowed here (column filters are filter=<column>:<value> or f.<column>=<value>)' });
    } else if (typeof raw !== 'string') {
      issues.push({ in: 'query', name: key, message: 'must be given once' });
    } else {
      addFilter(key, '', match[1]!, raw);
    }
  }
  const list = query[FILTER_LIST];
  const items = list === undefined ? [] : Array.isArray(list) ? list : [list];
  if (items.length > MAX_FILTER_ITEMS) {
    issues.push({ in: 'query', name: FILTER_LIST, message: `takes at most ${MAX_FILTER_ITEMS} values` });
  } else {
    for (const item of items) {
      const match = typeof item === 'string' ? FILTER_ITEM.exec(item) : null;
      const shown = JSON.stringify(typeof item === 'string' ? item.slice(0, 80) : item);
      if (match === null) issues.push({ in: 'query', name: FILTER_LIST, message: `${shown} must be <column>:<value> (a column name of a-z, 0-9 and _, then a colon)` });
      else addFilter(FILTER_LIST, `${match[1]!}: `, match[1]!, match[2]!);
    }
  }
  if (issues.length > 0) throw invalidRequest(issues);
  return options;
}

const columnList = (table: DimensionTable): string => table.columns.map((c) => c.name).join(', ');

/** The value to compare a column with, or undefined when `raw` cannot be stored in it. */
export function filterValue(column: DimensionColumn, raw: string): ColumnFilter['value'] | undefined {
  if (raw === '') return null;
  if (column.affinity === 'integer' || column.affinity === 'numeric') {
    if (raw === 'true') return 1;
    if (raw === 'false') return 0;
  }
  if (column.affinity === 'integer') {
    if (!/^-?\d{1,19}$/.test(raw)) return undefined;
    const big = BigInt(raw);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }
  if (column.affinity === 'real' || column.affinity === 'numeric') {
    const number = Number(raw);
    return raw.trim() !== '' && Number.isFinite(number) ? number : undefined;
  }
  return raw;
}

function expectation(column: DimensionColumn): string {
  if (column.affinity === 'integer') return 'an integer, or true/false';
  if (column.affinity === 'numeric') return 'a number, or true/false';
  return 'a number';
}
