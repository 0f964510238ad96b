import type Database from 'better-sqlite3';

/** Finding counts by severity and the money at risk. */
export interface SeveritySummary {
  total: number;
  high: number;
  medium: number;
  low: number;
  money: number;
}

/** Summarises the `findings` table; a KLS without it gives zeros. */
export function summariseFindings(db: Database.Database): SeveritySummary {
  const summary: SeveritySummary = { total: 0, high: 0, medium: 0, low: 0, money: 0 };
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'findings'").get();
  if (exists === undefined) return summary;
  const rows = db
    .prepare('SELECT lower(severity) AS severity, count(*) AS n, total(money_at_risk) AS money FROM findings GROUP BY lower(severity)')
    .all() as { severity: string | null; n: number; money: number }[];
  for (const row of rows) {
    summary.total += row.n;
    summary.money += row.money;
    if (row.severity === 'high' || row.severity === 'medium' || row.severity === 'low') summary[row.severity] += row.n;
  }
  summary.money = Math.round(summary.money * 100) / 100;
  return summary;
}
