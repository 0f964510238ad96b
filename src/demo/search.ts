import { OTHER_DEFINITIONS } from './afs.js';
import { localized, names, type Names } from './content.js';
import { SIGNALS, type AfsText } from './signals.js';
import type { Row } from './sqlite.js';
import type { TaxonomyRows } from './taxonomies.js';

/** The nine search kinds, in jumpbar order. */
export const SEARCH_KINDS = ['probe', 'hypothesis', 'taxonomy', 'entity', 'smebit', 'bitbundle', 'person', 'dimension', 'glossary'] as const;

/** One of the nine search kinds. */
export type SearchKind = (typeof SEARCH_KINDS)[number];

interface ItemSeed {
  id: string;
  name: Names;
  description?: Names;
  meta: Record<string, unknown>;
}

/** What the hand-written search items refer to in one tenant. */
export interface SearchContext {
  slug: string;
  taxonomies: TaxonomyRows;
  materialRows: number;
  costCentreRows: number;
}

const fromAfs = (text: AfsText | undefined): Names | undefined => (text ? names(text.en, text.de, text.fr) : undefined);

const HYPOTHESES: readonly ItemSeed[] = [
  ...OTHER_DEFINITIONS.filter((definition) => definition.type === 'thesis').map((definition) => ({
    id: definition.probe_id, name: fromAfs(definition.name) as Names, meta: { type: 'thesis', ...definition.contract },
  })),
  { id: 'hyp_implant_price_drift', name: names('Implant prices drift above contract', 'Implantatpreise steigen über den Vertragspreis', 'Les prix des implants dépassent le prix contractuel'), meta: { type: 'thesis', signals: ['probe_material_overuse'] } },
  { id: 'hyp_nursing_overtime', name: names('Nursing overtime drives budget overruns', 'Überstunden in der Pflege treiben Budgetüberschreitungen', 'Les heures supplémentaires des soins font dépasser les budgets'), meta: { type: 'thesis', signals: ['probe_cost_centre_overrun'] } },
];

const ENTITIES: readonly ItemSeed[] = [
  { id: 'Case', name: names('Case', 'Fall', 'Cas'), description: names('A hospital stay from admission to discharge.', 'Ein Spitalaufenthalt vom Eintritt bis zum Austritt.', "Un séjour hospitalier de l'admission à la sortie."), meta: { entity_type: 'Case', gold_tables: ['gold_cases', 'gold_case_costs'] } },
  { id: 'Material', name: names('Material', 'Material', 'Matériel'), meta: { entity_type: 'Material', gold_tables: ['gold_materials', 'gold_material_movements', 'gold_material_stock'] } },
  { id: 'BillingEvent', name: names('Billing event', 'Abrechnungsereignis', 'Événement de facturation'), meta: { entity_type: 'BillingEvent', gold_tables: ['gold_billing_events'] } },
  { id: 'CostCentre', name: names('Cost centre', 'Kostenstelle', 'Centre de coûts'), meta: { entity_type: 'CostCentre', gold_tables: ['gold_cost_centres'] } },
  { id: 'KST-4100', name: names('KST-4100 Surgery physicians', 'KST-4100 Ärztlicher Dienst Chirurgie', 'KST-4100 Corps médical de chirurgie'), meta: { entity_type: 'CostCentre' } },
  { id: 'M-2001', name: names('M-2001 Cementless hip prosthesis stem', 'M-2001 Hüftprothese Schaft zementfrei', 'M-2001 Tige de prothèse de hanche sans ciment'), meta: { entity_type: 'Material' } },
  { id: 'C-100001', name: names('Case C-100001', 'Fall C-100001', 'Cas C-100001'), meta: { entity_type: 'Case' } },
  { id: 'BE-500001', name: names('Invoice BE-500001', 'Rechnung BE-500001', 'Facture BE-500001'), meta: { entity_type: 'BillingEvent' } },
];

const SMEBITS: readonly ItemSeed[] = [
  { id: 'smebit_discharge_letter_delay', name: names('Late discharge letters delay coding', 'Verspätete Austrittsberichte verzögern die Kodierung', 'Les lettres de sortie tardives retardent le codage'), meta: { topic: 'billing', author: 'Marc Dubois' } },
  { id: 'smebit_implant_consignment', name: names('Consignment implants are charged on use', 'Konsignationsimplantate werden bei Verbrauch verrechnet', "Les implants en consignation sont facturés à l'utilisation"), meta: { topic: 'material', author: 'Thomas Meier' } },
  { id: 'smebit_cost_weight', name: names('Cost weight times base rate gives the case revenue', 'Kostengewicht mal Baserate ergibt den Fallerlös', 'Coût relatif fois prix de base : le revenu du cas'), meta: { topic: 'revenue', author: 'Anna Keller' } },
  { id: 'smebit_month_end_cutoff', name: names('Month-end cut-off for billing', 'Monatsabschluss-Stichtag für die Abrechnung', 'Date limite de clôture mensuelle pour la facturation'), meta: { topic: 'billing', author: 'Marc Dubois' } },
  { id: 'smebit_overtime_accrual', name: names('Overtime is accrued monthly', 'Überstunden werden monatlich abgegrenzt', null), meta: { topic: 'personnel', author: 'Sophie Favre' } },
];

const BITBUNDLES: readonly ItemSeed[] = [
  { id: 'bundle_revenue_cycle', name: names('Revenue cycle know-how', 'Wissen zum Erlöszyklus', 'Savoir-faire du cycle des recettes'), meta: { bits: ['smebit_discharge_letter_delay', 'smebit_month_end_cutoff', 'smebit_cost_weight'] } },
  { id: 'bundle_material_management', name: names('Material management', 'Materialwirtschaft', 'Gestion du matériel'), meta: { bits: ['smebit_implant_consignment'] } },
  { id: 'bundle_cost_accounting', name: names('Cost accounting basics', 'Grundlagen der Kostenrechnung', 'Coûts et comptabilité analytique'), meta: { bits: ['smebit_cost_weight', 'smebit_overtime_accrual'] } },
];

const PEOPLE: readonly (readonly [id: string, fullName: string, role: string, roleText: Names])[] = [
  ['person_anna_keller', 'Anna Keller', 'Controller', names('Controller, finance', 'Controllerin, Finanzen', 'Contrôleuse de gestion, finances')],
  ['person_marc_dubois', 'Marc Dubois', 'Head of billing', names('Head of patient billing', 'Leiter Patientenabrechnung', 'Responsable de la facturation des patients')],
  ['person_laura_bianchi', 'Laura Bianchi', 'Chief physician', names('Chief physician, surgery', 'Chefärztin Chirurgie', 'Médecin-cheffe, chirurgie')],
  ['person_thomas_meier', 'Thomas Meier', 'Material manager', names('Head of material management', 'Leiter Materialwirtschaft', null)],
  ['person_sophie_favre', 'Sophie Favre', 'Nursing director', names('Director of nursing', 'Pflegedirektorin', 'Directrice des soins')],
];

const GLOSSARY: readonly ItemSeed[] = [
  { id: 'glossary_fallpauschale', name: names('Case flat rate', 'Fallpauschale', 'Forfait par cas'), description: names('SwissDRG payment per inpatient case: cost weight times base rate.', 'SwissDRG-Vergütung pro stationärem Fall: Kostengewicht mal Baserate.', 'Rémunération SwissDRG par cas stationnaire : coût relatif multiplié par le prix de base.'), meta: { source: 'SwissDRG' } },
  { id: 'glossary_kostenstelle', name: names('Cost centre', 'Kostenstelle', 'Centre de coûts'), meta: { source: 'REKOLE' } },
  { id: 'glossary_cost_weight', name: names('Cost weight', 'Kostengewicht', 'Coût relatif'), meta: { source: 'SwissDRG' } },
  { id: 'glossary_cost_per_case', name: names('Cost per case', 'Fallkosten', 'Coût par cas'), meta: { source: 'REKOLE' } },
  { id: 'glossary_base_rate', name: names('Base rate', 'Baserate', 'Prix de base'), meta: { source: 'SwissDRG' } },
  { id: 'glossary_case_mix_index', name: names('Case mix index', 'Case-Mix-Index', 'Indice de case-mix'), meta: { source: 'SwissDRG' } },
  { id: 'glossary_tardoc', name: names('TARDOC outpatient tariff', 'TARDOC ambulanter Tarif', null), meta: { source: 'FMH' } },
  { id: 'glossary_rehabilitation', name: names('Rehabilitation', 'Rehabilitation', 'Réadaptation'), meta: { source: 'ST Reha' } },
  { id: 'glossary_controlling_overview', name: names('Controlling overview', 'Controlling-Übersicht', "Vue d'ensemble du controlling"), meta: { source: 'internal' } },
];

/** The hand-written search items of one tenant (every kind has several). */
export function searchItemRows(context: SearchContext): Row[] {
  const items: [SearchKind, ItemSeed][] = [];
  for (const signal of SIGNALS) {
    items.push(['probe', { id: signal.probe_id, name: fromAfs(signal.name) as Names, description: fromAfs(signal.description), meta: { type: 'signal', entity_type: signal.contract.entity_type, source: signal.contract.source } }]);
  }
  for (const definition of OTHER_DEFINITIONS.filter((candidate) => candidate.type !== 'thesis')) {
    items.push(['probe', { id: definition.probe_id, name: fromAfs(definition.name) as Names, description: fromAfs(definition.description), meta: { type: definition.type } }]);
  }
  for (const item of HYPOTHESES) items.push(['hypothesis', item]);
  for (const row of context.taxonomies.taxonomies) {
    const id = String(row['taxonomy_id']);
    const count = (list: Row[]): number => list.filter((entry) => entry['taxonomy_id'] === id).length;
    items.push(['taxonomy', { id, name: rowNames(row), meta: { nodes: count(context.taxonomies.nodes), members: count(context.taxonomies.members) } }]);
  }
  for (const item of ENTITIES) items.push(['entity', item]);
  for (const item of SMEBITS) items.push(['smebit', item]);
  for (const item of BITBUNDLES) items.push(['bitbundle', item]);
  for (const [id, fullName, role, roleText] of PEOPLE) {
    const email = `${fullName.toLowerCase().replace(' ', '.')}@${context.slug}.example`;
    items.push(['person', { id, name: names(fullName, fullName, fullName), description: roleText, meta: { role, email } }]);
  }
  items.push(['dimension', { id: 'cost_centres', name: names('Cost centres', 'Kostenstellen', 'Centres de coûts'), meta: { table: 'dim_cost_centres', rows: context.costCentreRows } }]);
  items.push(['dimension', { id: 'materials', name: names('Materials', 'Materialien', 'Matériel'), meta: { table: 'dim_materials', rows: context.materialRows } }]);
  for (const item of GLOSSARY) items.push(['glossary', item]);
  return items.map(([kind, item]) => ({
    kind,
    item_id: item.id,
    ...localized(item.name),
    ...localized(item.description ?? names(null, null, null), 'description'),
    meta: JSON.stringify(item.meta),
  }));
}

function rowNames(row: Row): Names {
  const text = (key: string): string | null => (typeof row[key] === 'string' ? (row[key] as string) : null);
  return names(text('name_en'), text('name_de'), text('name_fr'));
}
