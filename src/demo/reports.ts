import { COST_CENTRES } from './content.js';
import type { FindingRow } from './evaluate.js';
import type { GoldTable } from './gold.js';
import { buildPdf } from './pdf.js';
import type { Row } from './sqlite.js';
import { DEMO_BUILT_AT, type DemoTenant } from './tenants.js';

/** Rows of the `report_pdfs` table for one tenant. */
export function reportRows(tenant: DemoTenant, gold: readonly GoldTable[], findings: readonly FindingRow[]): Row[] {
  const creationDate = `D:${DEMO_BUILT_AT.replace(/[-:T]/g, '').replace('Z', '')}Z`;
  const monthly = monthlyControllingLines(tenant, gold, findings);
  const quarterly = quarterlyBillingLines(tenant, gold);
  return [
    { report_key: 'monthly_controlling_2026_10', title: monthly.title, pdf: buildPdf({ ...monthly, creationDate }), created_at: DEMO_BUILT_AT },
    { report_key: 'quarterly_billing_2026_q3', title: quarterly.title, pdf: buildPdf({ ...quarterly, creationDate }), created_at: DEMO_BUILT_AT },
  ];
}

/** Swiss number format: 1'234'567.80 */
export function chf(value: number): string {
  const [whole = '0', cents = '00'] = Math.abs(value).toFixed(2).split('.');
  return `${value < 0 ? '-' : ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, "'")}.${cents}`;
}

function rowsOf(gold: readonly GoldTable[], name: string): readonly Row[] {
  return gold.find((table) => table.spec.name === name)?.rows ?? [];
}

const num = (row: Row, column: string): number => (typeof row[column] === 'number' ? (row[column] as number) : 0);
const sum = (rows: readonly Row[], column: string): number => rows.reduce((total, row) => total + num(row, column), 0);

function monthlyControllingLines(tenant: DemoTenant, gold: readonly GoldTable[], findings: readonly FindingRow[]): { title: string; lines: string[] } {
  const month = '2026-10';
  const discharged = rowsOf(gold, 'gold_cases').filter((row) => String(row['discharged_on'] ?? '').startsWith(month));
  const unbilled = discharged.filter((row) => row['billed'] === 0);
  const centres = rowsOf(gold, 'gold_cost_centres').filter((row) => row['month'] === month);
  const budget = sum(centres, 'budget_chf');
  const actual = sum(centres, 'actual_chf');
  const overuse = rowsOf(gold, 'gold_materials').filter((row) => row['month'] === month && num(row, 'overuse_chf') > 0);
  const count = (severity: string): number => findings.filter((finding) => finding.severity === severity).length;
  const topOverruns = [...centres].sort((a, b) => num(b, 'variance_pct') - num(a, 'variance_pct')).slice(0, 5);
  return {
    title: `Monthly controlling report - October 2026`,
    lines: [
      `${tenant.displayName} (${tenant.compositeId})`,
      'Monatsreporting Controlling / Rapport mensuel de controlling',
      '',
      `Cases discharged in October: ${discharged.length}`,
      `Expected revenue of discharged cases: CHF ${chf(sum(discharged, 'expected_amount'))}`,
      `Discharged but not yet billed: ${unbilled.length} cases, CHF ${chf(sum(unbilled, 'expected_amount'))}`,
      '',
      `Cost centres, budget: CHF ${chf(budget)}`,
      `Cost centres, actual: CHF ${chf(actual)}`,
      `Variance: CHF ${chf(actual - budget)} (${budget === 0 ? '0.0' : (((actual - budget) / budget) * 100).toFixed(1)} %)`,
      `Material used above plan: CHF ${chf(sum(overuse, 'overuse_chf'))} in ${overuse.length} articles`,
      '',
      `Open findings: ${findings.length} (high ${count('high')}, medium ${count('medium')}, low ${count('low')})`,
      `Money at risk: CHF ${chf(findings.reduce((total, finding) => total + finding.money_at_risk, 0))}`,
      '',
      'Largest budget variances in October:',
      ...topOverruns.map((row) => {
        const centre = COST_CENTRES.find((candidate) => candidate.id === row['cost_centre_id']);
        return `  ${String(row['cost_centre_id'])} ${centre?.name.de ?? ''}: ${num(row, 'variance_pct').toFixed(1)} % (CHF ${chf(num(row, 'variance_chf'))})`;
      }),
      '',
      `Built ${DEMO_BUILT_AT}. Demo data, not real patients.`,
    ],
  };
}

function quarterlyBillingLines(tenant: DemoTenant, gold: readonly GoldTable[]): { title: string; lines: string[] } {
  const quarter = ['2026-07', '2026-08', '2026-09'];
  const events = rowsOf(gold, 'gold_billing_events').filter((row) => quarter.includes(String(row['billed_on'] ?? '').slice(0, 7)));
  const withCase = events.filter((row) => row['case_id'] !== null);
  const late = withCase.filter((row) => num(row, 'days_to_bill') > 30);
  const averageDays = withCase.length === 0 ? 0 : sum(withCase, 'days_to_bill') / withCase.length;
  const payers = [...new Set(events.map((row) => String(row['payer'])))].sort();
  return {
    title: 'Quarterly billing report - Q3 2026',
    lines: [
      `${tenant.displayName} (${tenant.compositeId})`,
      'Quartalsbericht Abrechnung / Rapport trimestriel de facturation',
      '',
      `Invoices issued July to September: ${events.length}, CHF ${chf(sum(events, 'amount'))}`,
      `Average days from discharge to invoice: ${averageDays.toFixed(1)}`,
      `Invoices later than 30 days: ${late.length}, CHF ${chf(sum(late, 'amount'))}`,
      `Rejected invoices: ${events.filter((row) => row['status'] === 'rejected').length}`,
      '',
      'Invoiced amount by payer:',
      ...payers.map((payer) => {
        const rows = events.filter((row) => row['payer'] === payer);
        return `  ${payer}: ${rows.length} invoices, CHF ${chf(sum(rows, 'amount'))}`;
      }),
      '',
      `Built ${DEMO_BUILT_AT}. Demo data, not real patients.`,
    ],
  };
}
