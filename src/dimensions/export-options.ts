import { invalidRequest, type ValidationIssue } from '../http/errors.js';
import type { DimensionColumn, DimensionTable } from './dimension-table.js';

/** Query keys of a column filter: `f.<column>`. */
export const FILTER_KEY = /^f\.([a-z_][a-z0-9_]*)$/;

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
 * Reads `q`, `sort`, `order` and every `f.<column>` filter from the request's query against the table:
 * an unknown column, a value that does not fit the column, or any other undeclared key is 400.
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
  for (const [key, raw] of Object.entries(query)) {
    if (declared.includes(key)) continue;
    const match = FILTER_KEY.exec(key);
    if (match === null) {
      issues.push({ in: 'query', name: key, message: 'is not allowed here (column filters are named f.<column>)' });
      continue;
    }
    const filtered = column(match[1]!);
    if (filtered === undefined) {
      issues.push({ in: 'query', name: key, message: `names no column of ${table.entity}; columns: ${columnList(table)}` });
      continue;
    }
    if (typeof raw !== 'string') {
      issues.push({ in: 'query', name: key, message: 'must be given once' });
      continue;
    }
    const value = filterValue(filtered, raw);
    if (value === undefined) issues.push({ in: 'query', name: key, message: `must be ${expectation(filtered)}` });
    else options.filters.push({ column: filtered, value });
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
