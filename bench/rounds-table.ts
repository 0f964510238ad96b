// The cells of a side-by-side table of rounds (bench/regress.bench.ts): a measure's median over the rounds with its
// spread (the largest distance of a round from the median), or a count over the rounds, and whether its goal held.
import { fmt, median } from './stats.js';

/** A figure of every round, what it means and its goal; `total`: the rounds' sum (`n in rounds`), not their median. */
export interface Measure {
  label: string;
  digits: number;
  goal?: string;
  total?: true;
  /** Whether the goal holds; undefined: the run cannot judge it. */
  holds?: (value: number, spreadPercent: number, rounds: number) => boolean | undefined;
}

const spreadOf = (values: number[]): number => (Math.max(...values.map((v) => Math.abs(v - median(values)))) / median(values)) * 100;

/** `median (±spread %) held|missed`, or for a total `n in rounds held|missed`; rounds without a figure (NaN) are named. */
export function cell(values: number[], m: Measure): string {
  if (values.length === 0) return '-';
  const known = values.filter((v) => !Number.isNaN(v));
  const value = m.total ? values.reduce((sum, v) => sum + v, 0) : median(known);
  const spread = known.length === 0 ? Number.NaN : spreadOf(known);
  const judged = m.holds?.(value, spread, values.length);
  const verdict = m.holds === undefined ? '' : judged === undefined ? ' not judged' : judged ? ' held' : ' **missed**';
  if (m.total) return `${fmt(value, 0)} in ${values.length} round(s)${verdict}`;
  if (known.length === 0) return `-${verdict}`;
  const without = known.length < values.length ? `, ${values.length - known.length} round(s) without` : '';
  return `${fmt(value, m.digits)} (±${fmt(spread, 0)} %)${without}${verdict}`;
}

/** This build's median / the other's, or `-` for a total. */
export const ratioCell = (current: number[], older: number[], m: Measure): string =>
  m.total ? '-' : fmt(median(current.filter((v) => !Number.isNaN(v))) / median(older.filter((v) => !Number.isNaN(v))), 2);
