import { CLINICAL_COST_CENTRE_IDS, DEMO_MONTHS } from './content.js';
import { addDays, dayNumber, isoDate, PERIOD_END, PERIOD_START } from './dates.js';
import { MATERIAL_CATALOGUE, materialId, type MaterialSeed } from './materials.js';
import { roundMoney, type Random } from './random.js';
import type { Row } from './sqlite.js';

/** Gold rows about materials: monthly consumption, stock movements and stock levels. */
export interface MaterialRows {
  materials: Row[];
  movements: Row[];
  stock: Row[];
}

/** Materials with monthly Gold rows (M-2001..M-2040). */
export const GOLD_MATERIAL_COUNT = MATERIAL_CATALOGUE.length;

/** Number of movement rows of M-2001 (the "more than 20 rows" example). */
export const M2001_MOVEMENTS = 35;

/** Fixed October consumption: M-2001 high, M-2006 medium, M-2008 low in probe_material_overuse. */
const ANCHORS: Readonly<Record<string, { expected: number; used: number }>> = {
  'M-2001|2026-10': { expected: 14, used: 18 },
  'M-2006|2026-10': { expected: 120, used: 140 },
  'M-2008|2026-10': { expected: 400, used: 460 },
};

const LOCATIONS = ['Zentrallager', 'OP-Lager', 'Spitalapotheke', 'Station 3B', 'Notfall-Depot'];

/** Generates the monthly, movement and stock rows of the first GOLD_MATERIAL_COUNT catalogue articles. */
export function generateMaterialRows(random: Random, caseIds: readonly string[]): MaterialRows {
  const materials: Row[] = [];
  const movements: Row[] = [];
  const stock: Row[] = [];
  let movementNumber = 100001;
  MATERIAL_CATALOGUE.slice(0, GOLD_MATERIAL_COUNT).forEach((seed, index) => {
    const id = materialId(index);
    const costCentreId = costCentreOf(seed, index);
    const monthlyExpected = expectedQuantity(random, seed);
    for (const month of DEMO_MONTHS) {
      const anchor = ANCHORS[`${id}|${month}`];
      const expected = anchor?.expected ?? Math.max(1, Math.round(monthlyExpected * (0.85 + random.next() * 0.3)));
      const factor = random.chance(0.15) ? 1.1 + random.next() * 0.35 : 0.85 + random.next() * 0.23;
      const used = anchor?.used ?? Math.round(expected * factor);
      materials.push({
        material_id: id,
        name: seed.name.de,
        category: seed.category,
        cost_centre_id: costCentreId,
        month,
        quantity_used: used,
        quantity_expected: expected,
        unit_price: seed.unitPrice,
        overuse_pct: Math.round(((used - expected) / expected) * 1000) / 10,
        overuse_chf: roundMoney((used - expected) * seed.unitPrice),
      });
    }
    const movementCount = index === 0 ? M2001_MOVEMENTS : random.int(6, 25);
    const days: number[] = [];
    for (let n = 0; n < movementCount; n++) days.push(random.int(dayNumber(PERIOD_START), dayNumber(PERIOD_END)));
    days.sort((a, b) => a - b);
    for (const day of days) {
      const roll = random.next();
      const type = roll < 0.7 ? 'issue' : roll < 0.92 ? 'receipt' : 'return';
      const quantity = Math.max(1, Math.round((monthlyExpected / 4) * (0.5 + random.next())));
      const signed = type === 'issue' ? -quantity : quantity;
      movements.push({
        movement_id: `MV-${movementNumber++}`,
        material_id: id,
        moved_on: isoDate(day),
        movement_type: type,
        quantity: signed,
        cost_centre_id: type === 'receipt' ? 'KST-3300' : costCentreId,
        case_id: type === 'issue' && seed.category === 'Implant' ? random.pick(caseIds) : null,
        amount_chf: roundMoney(signed * seed.unitPrice),
      });
    }
    stock.push({
      material_id: id,
      storage_location: random.pick(LOCATIONS),
      stock_on_hand: Math.round(monthlyExpected * (0.3 + random.next() * 1.5)),
      reorder_level: Math.max(1, Math.round(monthlyExpected * 0.5)),
      last_counted_on: addDays(PERIOD_END, -random.int(0, 40)),
    });
  });
  return { materials, movements, stock };
}

function expectedQuantity(random: Random, seed: MaterialSeed): number {
  if (seed.unitPrice >= 1000) return random.int(6, 20);
  if (seed.unitPrice >= 100) return random.int(15, 60);
  if (seed.unitPrice >= 10) return random.int(60, 300);
  return random.int(300, 3000);
}

function costCentreOf(seed: MaterialSeed, index: number): string {
  if (seed.category === 'Implant') return index === 2 || index === 3 ? 'KST-4500' : 'KST-7100';
  if (seed.category === 'Rehabilitation aids') return 'KST-6100';
  if (seed.category === 'Laboratory') return 'KST-3100';
  return CLINICAL_COST_CENTRE_IDS[index % CLINICAL_COST_CENTRE_IDS.length] ?? 'KST-5100';
}
