import { COST_CENTRES, DEMO_MONTHS, names, type Names } from './content.js';
import { generateCaseRows } from './gold-cases.js';
import { generateMaterialRows } from './gold-materials.js';
import { roundMoney, type Random } from './random.js';
import { defineTable, type Row, type TableSpec } from './sqlite.js';

/** Entity types that Gold tables are registered under. */
export type EntityType = 'Material' | 'Case' | 'BillingEvent' | 'CostCentre';

/** A Gold table with its `gold_tables` registration and its rows. */
export interface GoldTable {
  spec: TableSpec;
  entityType: EntityType;
  entityColumn: string;
  timeColumn: string | null;
  label: Names;
  rows: Row[];
}

/** Number of cases per tenant. */
export const CASE_COUNT = 300;

/** Gold table definitions; `*` marks primary-key columns. */
export const GOLD_SPECS = {
  cases: defineTable('gold_cases', 'case_id TEXT*, patient_class TEXT, admitted_on TEXT, discharged_on TEXT, status TEXT, billed INTEGER, expected_amount REAL, cost_centre_id TEXT, drg_code TEXT, cost_weight REAL, length_of_stay INTEGER'),
  caseCosts: defineTable('gold_case_costs', 'cost_line_id TEXT*, case_id TEXT, cost_date TEXT, cost_type TEXT, cost_centre_id TEXT, amount_chf REAL'),
  billingEvents: defineTable('gold_billing_events', 'billing_event_id TEXT*, case_id TEXT, billed_on TEXT, amount REAL, days_to_bill INTEGER, payer TEXT, status TEXT, invoice_type TEXT'),
  materials: defineTable('gold_materials', 'material_id TEXT*, name TEXT, category TEXT, cost_centre_id TEXT, month TEXT*, quantity_used INTEGER, quantity_expected INTEGER, unit_price REAL, overuse_pct REAL, overuse_chf REAL'),
  movements: defineTable('gold_material_movements', 'movement_id TEXT*, material_id TEXT, moved_on TEXT, movement_type TEXT, quantity INTEGER, cost_centre_id TEXT, case_id TEXT, amount_chf REAL'),
  stock: defineTable('gold_material_stock', 'material_id TEXT*, storage_location TEXT, stock_on_hand INTEGER, reorder_level INTEGER, last_counted_on TEXT'),
  costCentres: defineTable('gold_cost_centres', 'cost_centre_id TEXT*, month TEXT*, department TEXT, budget_chf REAL, actual_chf REAL, variance_chf REAL, variance_pct REAL, fte_budget REAL, fte_actual REAL'),
} as const;

/** Generates every Gold table of one tenant, in registry order. */
export function generateGold(random: Random): GoldTable[] {
  const caseRows = generateCaseRows(random, CASE_COUNT);
  const caseIds = caseRows.cases.map((row) => String(row['case_id']));
  const materialRows = generateMaterialRows(random, caseIds);
  return [
    gold(GOLD_SPECS.cases, 'Case', 'case_id', 'discharged_on', names('Cases', 'Fälle', 'Cas'), caseRows.cases),
    gold(GOLD_SPECS.caseCosts, 'Case', 'case_id', 'cost_date', names('Case cost lines', 'Fallkosten', 'Coûts par cas'), caseRows.caseCosts),
    gold(GOLD_SPECS.billingEvents, 'BillingEvent', 'billing_event_id', 'billed_on', names('Billing events', 'Abrechnungen', 'Événements de facturation'), caseRows.billingEvents),
    gold(GOLD_SPECS.materials, 'Material', 'material_id', 'month', names('Material consumption', 'Materialverbrauch', 'Consommation de matériel'), materialRows.materials),
    gold(GOLD_SPECS.movements, 'Material', 'material_id', 'moved_on', names('Material movements', 'Materialbewegungen', 'Mouvements de matériel'), materialRows.movements),
    gold(GOLD_SPECS.stock, 'Material', 'material_id', null, names('Material stock', 'Lagerbestand', 'Stock de matériel'), materialRows.stock),
    gold(GOLD_SPECS.costCentres, 'CostCentre', 'cost_centre_id', 'month', names('Cost centre budget and actuals', 'Kostenstellen Budget und Ist', 'Centres de coûts : budget et réel'), costCentreRows(random)),
  ];
}

/** Fixed overruns: KST-4100 high in October, KST-5100 medium in September, KST-3200 low in August. */
const OVERRUN_ANCHORS: Readonly<Record<string, number>> = {
  'KST-4100|2026-10': 1.239,
  'KST-5100|2026-09': 1.124,
  'KST-3200|2026-08': 1.065,
};

function costCentreRows(random: Random): Row[] {
  const rows: Row[] = [];
  for (const centre of COST_CENTRES) {
    const fte = Math.round(centre.monthlyBudgetChf / 11500);
    for (const month of DEMO_MONTHS) {
      const budget = roundMoney(centre.monthlyBudgetChf * (0.95 + random.next() * 0.1));
      const factor = OVERRUN_ANCHORS[`${centre.id}|${month}`]
        ?? (random.chance(0.15) ? 1.06 + random.next() * 0.24 : 0.9 + random.next() * 0.14);
      const actual = roundMoney(budget * factor);
      const variance = roundMoney(actual - budget);
      rows.push({
        cost_centre_id: centre.id,
        month,
        department: centre.department,
        budget_chf: budget,
        actual_chf: actual,
        variance_chf: variance,
        variance_pct: Math.round((variance / budget) * 1000) / 10,
        fte_budget: fte,
        fte_actual: Math.round(fte * factor * 10) / 10,
      });
    }
  }
  return rows;
}

function gold(spec: TableSpec, entityType: EntityType, entityColumn: string, timeColumn: string | null, label: Names, rows: Row[]): GoldTable {
  return { spec, entityType, entityColumn, timeColumn, label, rows };
}
