import { COST_CENTRES, localized, names } from './content.js';
import { isImplantCategory, MATERIAL_CATALOGUE, materialId } from './materials.js';
import { roundMoney, type Random } from './random.js';
import { defineTable, type Row, type SqlValue } from './sqlite.js';

/** Dimension table definitions (columns in export order). */
export const DIMENSION_SPECS = {
  costCentres: defineTable('dim_cost_centres', 'cost_centre_id TEXT*, name_en TEXT, name_de TEXT, name_fr TEXT, department TEXT, active INTEGER, budget_chf REAL'),
  materials: defineTable('dim_materials', 'material_id TEXT*, name_de TEXT, name_fr TEXT, name_en TEXT, category TEXT, unit_price REAL, is_implant INTEGER, note TEXT'),
} as const;

/** Rows of the `dimensions` registry. */
export const DIMENSION_REGISTRY: readonly Row[] = [
  { entity: 'cost_centres', table_name: 'dim_cost_centres', ...localized(names('Cost centres', 'Kostenstellen', 'Centres de coûts'), 'label') },
  { entity: 'materials', table_name: 'dim_materials', ...localized(names('Materials', 'Materialien', 'Matériel'), 'label') },
];

/** One row per cost centre; the yearly budget is twelve monthly budgets. */
export function costCentreDimensionRows(): Row[] {
  return COST_CENTRES.map((centre) => ({
    cost_centre_id: centre.id,
    ...localized(centre.name),
    department: centre.department,
    active: centre.active ? 1 : 0,
    budget_chf: centre.monthlyBudgetChf * 12,
  }));
}

/** Notes that start with a formula character or need CSV quoting, placed on the first rows. */
const SPECIAL_NOTES: Readonly<Record<number, string>> = {
  2: '=Sammelposition',
  4: '-10% Rabatt',
  6: '+Zuschlag Notfall',
  8: '@Lager West',
  10: 'Enthält Latex, "puderfrei"',
  12: 'Zeile 1\nZeile 2',
  14: 'Lieferant: "Hartmann", Bestellung nur telefonisch',
  16: '=SUMME(A1:A3)',
  18: '\tTabulator am Anfang',
};

const SUPPLIERS = ['B. Braun', 'Medtronic', 'Hartmann', 'Fresenius', 'Zimmer Biomet', 'Stryker', 'Sigvaris', 'Johnson & Johnson', "L'Oréal Pro"];
const VARIANT_WORDS = [
  names('pack', 'Packung', 'emballage'),
  names('refill', 'Nachfüllung', 'recharge'),
  names('size', 'Grösse', 'taille'),
  names('trial', 'Muster', 'échantillon'),
];

/** dim_materials value arrays (column order of DIMENSION_SPECS.materials); row i is material M-(2001+i). */
export function* materialDimensionValues(random: Random, count: number): Generator<SqlValue[]> {
  const catalogueSize = MATERIAL_CATALOGUE.length;
  for (let index = 0; index < count; index++) {
    const seed = MATERIAL_CATALOGUE[index % catalogueSize];
    if (!seed) throw new Error('empty material catalogue');
    const variant = Math.floor(index / catalogueSize);
    let { en, de, fr } = seed.name;
    if (variant > 0) {
      const supplier = SUPPLIERS[variant % SUPPLIERS.length];
      const word = VARIANT_WORDS[(variant >> 2) % VARIANT_WORDS.length] ?? VARIANT_WORDS[0];
      en = `${en} – ${supplier}, ${word?.en} ${variant}`;
      de = `${de} – ${supplier}, ${word?.de} ${variant}`;
      fr = fr === null ? null : `${fr} – ${supplier}, ${word?.fr} ${variant}`;
    }
    if (index % 97 === 13) fr = null;
    const note = SPECIAL_NOTES[index] ?? (index % 50 === 25 ? 'Konsignationsware' : index % 7 === 3 ? 'Rahmenvertrag 2026' : null);
    const price = variant === 0 ? seed.unitPrice : roundMoney(seed.unitPrice * (0.85 + random.next() * 0.3));
    yield [materialId(index), de, fr, en, seed.category, price, isImplantCategory(seed.category) ? 1 : 0, note];
  }
}
