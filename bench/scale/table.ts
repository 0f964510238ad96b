// The rows of `npm run bench scale`: each measure next to its baseline ("now") and its goal.

export type Verdict = 'met' | 'MISSED' | 'unchecked' | 'not run' | 'failed';

export interface Row {
  measure: string;
  /** The figure of version 0.2.0, measured the same way on the same machine. */
  baseline: string;
  goal: string;
  measured: string;
  verdict: Verdict;
  /** Why the verdict is what it is, when that is not plain from the figures. */
  note?: string;
}

/** The six measures at scale, with their baselines (version 0.2.0) and goals. */
export const MEASURE_ROWS = {
  openLoop: {
    measure: 'unseen typeahead queries on a 200,000-item tenant, open loop at 1,000 req/s',
    baseline: 'p50 2.8–3.4 ms, p99 36–318 ms',
    goal: 'p99 ≤ 20 ms',
  },
  closedLoop: { measure: 'unseen queries, closed loop, 50 connections', baseline: '1,500–1,900 req/s', goal: '≥ 3,000 req/s' },
  jumpbar: {
    measure: '`GET /api/jumpbar?mode=tenants` (answered from memory) vs bare Koa sending the same bytes',
    baseline: '0.16',
    goal: '≥ 0.35, validation on, default logging',
  },
  export: { measure: '1,000,000-row CSV export vs `sqlite3 -csv` of the same table', baseline: '2.2–2.3×', goal: '≤ 1.5×, RSS growth < 64 MB' },
  idle: { measure: 'idle RSS with one 200,000-item tenant whose index is built', baseline: '215 MB', goal: '≤ 150 MB' },
  tenants: {
    measure: '1,000 small tenants, after each served a search, a summary and an export',
    baseline: '654 MB RSS, ~2,000 open files',
    goal: '≤ 300 MB; open files bounded by a setting',
  },
} as const satisfies Record<string, Pick<Row, 'measure' | 'baseline' | 'goal'>>;

export type MeasureKey = keyof typeof MEASURE_ROWS;

/** A row of `key` with what was measured. */
export const rowOf = (key: MeasureKey, measured: string, verdict: Verdict, note?: string): Row => ({ ...MEASURE_ROWS[key], measured, verdict, ...(note === undefined ? {} : { note }) });

/** met / MISSED from a condition. */
export const verdictOf = (holds: boolean): Verdict => (holds ? 'met' : 'MISSED');

/** Prints a measure's outcome as soon as it is known. */
export function printRow(row: Row): void {
  console.log(`=> ${row.measure}: ${row.measured} | now ${row.baseline} | goal ${row.goal} | ${row.verdict}${row.note === undefined ? '' : ` (${row.note})`}`);
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The rows as one markdown table. */
export function markdownTable(rows: readonly Row[]): string {
  const lines = ['| measure | now (baseline) | goal | this run | goal holds |', '|---|---|---|---|---|'];
  for (const row of rows) {
    const verdict = row.verdict === 'met' ? '**met**' : row.verdict === 'MISSED' ? '**missed**' : row.verdict;
    lines.push(`| ${cell(row.measure)} | ${cell(row.baseline)} | ${cell(row.goal)} | ${cell(row.measured)} | ${cell(verdict + (row.note === undefined ? '' : ` (${row.note})`))} |`);
  }
  return lines.join('\n');
}

/** Median; the mean of the two middle values for an even count. */
export function middle(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

/** Rounds for the table: 2 decimals under 10, 1 under 100, none above; thousands separated. */
export const num = (value: number): string =>
  !Number.isFinite(value) ? String(value) : value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US');
