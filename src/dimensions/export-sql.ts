import { quoteIdentifier, rowidAddressable, type DimensionTable } from './dimension-table.js';
import type { ExportOptions } from './export-options.js';

/** SQL function registered on export connections: Unicode lower case, for `q` with non-ASCII letters. */
export const FOLD_FUNCTION = 'ads_fold';

/** One statement and its parameters. */
export interface SqlStatement {
  sql: string;
  params: (string | number | bigint)[];
}

/** `WHERE …` for `q` and the column filters ('' when there is nothing to filter). */
export function whereClause(table: DimensionTable, options: ExportOptions): SqlStatement {
  const { conditions, params } = filterConditions(table, options);
  return { sql: conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`, params };
}

/** The conditions for `q` and the column filters, each a boolean SQL expression, and their parameters in order. */
export function filterConditions(table: DimensionTable, options: ExportOptions): { conditions: string[]; params: SqlStatement['params'] } {
  const conditions: string[] = [];
  const params: SqlStatement['params'] = [];
  if (options.q !== undefined) {
    const texts = table.columns.filter((c) => c.affinity === 'text').map((c) => quoteIdentifier(c.name));
    if (texts.length === 0) {
      conditions.push('0');
    } else if (/^[\x20-\x7e]*$/.test(options.q)) {
      // ASCII needle: LIKE folds ASCII case natively (fast); non-ASCII letters in the data still compare exactly.
      const pattern = `%${options.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      conditions.push(`(${texts.map((t) => `${t} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
      for (let i = 0; i < texts.length; i += 1) params.push(pattern);
    } else {
      conditions.push(`(${texts.map((t) => `instr(${FOLD_FUNCTION}(${t}), ?) > 0`).join(' OR ')})`);
      for (let i = 0; i < texts.length; i += 1) params.push(options.q.toLowerCase());
    }
  }
  for (const filter of options.filters) {
    const column = quoteIdentifier(filter.column.name);
    if (filter.value === null) {
      conditions.push(`(${column} IS NULL OR ${column} = '')`);
    } else {
      conditions.push(`${column} = ?`);
      params.push(filter.value);
    }
  }
  return { conditions, params };
}

/**
 * The export SELECT: every column in table order, filtered, sorted. At most `limit` rows, but a sort that ends in
 * the rowid (a total order) carries no LIMIT: SQLite sorts a million rows about five times faster without one
 * (with a LIMIT it keeps the rows in a b-tree), so the reader stops after `limit` rows itself (firstRows). Other
 * sorts keep the LIMIT, under which ties come in table order.
 */
export function exportSelect(table: DimensionTable, options: ExportOptions, limit: number): SqlStatement {
  const where = whereClause(table, options);
  const columns = table.columns.map((c) => quoteIdentifier(c.name)).join(', ');
  const from = `SELECT ${columns} FROM ${quoteIdentifier(table.tableName)}${where.sql}`;
  if (options.sort === undefined) return { sql: `${from} LIMIT ?`, params: [...where.params, limit] };
  const direction = options.order === 'desc' ? 'DESC' : 'ASC';
  const order = ` ORDER BY ${quoteIdentifier(options.sort.name)} ${direction}`;
  if (rowidAddressable(table)) return { sql: `${from}${order}, rowid`, params: where.params };
  return { sql: `${from}${order}${table.hasRowid ? ', rowid' : ''} LIMIT ?`, params: [...where.params, limit] };
}

/**
 * The export SELECT of an unsorted export of a rowid-addressable table, one page of rowids at a time: the matching
 * rows whose rowid is at least the next-to-last parameter and at most the last, in rowid order (table order, as the
 * unsorted export answers them).
 */
export function exportPageSelect(table: DimensionTable, options: ExportOptions): SqlStatement {
  const { conditions, params } = filterConditions(table, options);
  const columns = table.columns.map((c) => quoteIdentifier(c.name)).join(', ');
  const where = [...conditions, 'rowid >= ?', 'rowid <= ?'].join(' AND ');
  return { sql: `SELECT ${columns} FROM ${quoteIdentifier(table.tableName)} WHERE ${where} ORDER BY rowid`, params };
}

/** Selects one constant per matching row, at most `limit` rows (to learn whether more than the cap match). */
export function matchProbe(table: DimensionTable, options: ExportOptions, limit: number): SqlStatement {
  const where = whereClause(table, options);
  return { sql: `SELECT 1 FROM ${quoteIdentifier(table.tableName)}${where.sql} LIMIT ?`, params: [...where.params, limit] };
}
