const MS_PER_DAY = 86400000;

/** Days since 1970-01-01 of an ISO date `YYYY-MM-DD` (UTC). */
export function dayNumber(isoDate: string): number {
  return Math.round(Date.parse(`${isoDate}T00:00:00Z`) / MS_PER_DAY);
}

/** ISO date `YYYY-MM-DD` of a day number. */
export function isoDate(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** ISO date `days` after `date`. */
export function addDays(date: string, days: number): string {
  return isoDate(dayNumber(date) + days);
}

/** Whole days from `from` to `to`. */
export function daysBetween(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from);
}

/** First day of the demo period. */
export const PERIOD_START = '2026-01-01';

/** Last day of the demo period (the KLS is built the next morning). */
export const PERIOD_END = '2026-10-31';
