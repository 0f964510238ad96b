/** Tri-lingual text; any variant may be NULL (readers fall back to English). */
export interface Names {
  en: string | null;
  de: string | null;
  fr: string | null;
}

/** Builds a Names value; pass null for a missing variant. */
export function names(en: string | null, de: string | null, fr: string | null): Names {
  return { en, de, fr };
}

/** Spreads Names into `<prefix>_en`, `<prefix>_de`, `<prefix>_fr` columns. */
export function localized(name: Names, prefix = 'name'): Record<string, string | null> {
  return { [`${prefix}_en`]: name.en, [`${prefix}_de`]: name.de, [`${prefix}_fr`]: name.fr };
}

/** A cost centre of the demo hospital. */
export interface CostCentreSeed {
  id: string;
  name: Names;
  department: string;
  monthlyBudgetChf: number;
  active: boolean;
}

/** The cost centres every tenant has (KST-4100 is the contract example). */
export const COST_CENTRES: readonly CostCentreSeed[] = [
  cc('KST-1100', names('Hospital management', 'Spitaldirektion', "Direction de l'hôpital"), 'Administration', 180000),
  cc('KST-1200', names('Finance and controlling', 'Finanzen und Controlling', 'Finances et controlling'), 'Administration', 140000),
  cc('KST-1300', names('Information technology', 'Informatik', 'Informatique'), 'Administration', 210000),
  cc('KST-2100', names('Kitchen and catering', 'Küche und Verpflegung', 'Cuisine et restauration'), 'Hotel services', 160000),
  cc('KST-2200', names('Cleaning', 'Reinigung', 'Nettoyage'), 'Hotel services', 95000),
  cc('KST-2300', names('Laundry (outsourced)', 'Wäscherei (ausgelagert)', 'Blanchisserie (externalisée)'), 'Hotel services', 30000, false),
  cc('KST-3100', names('Laboratory', 'Labor', 'Laboratoire'), 'Medical services', 260000),
  cc('KST-3200', names('Radiology', 'Radiologie', 'Radiologie'), 'Medical services', 340000),
  cc('KST-3300', names('Hospital pharmacy', 'Spitalapotheke', "Pharmacie de l'hôpital"), 'Medical services', 150000),
  cc('KST-4100', names('Surgery physicians', 'Ärztlicher Dienst Chirurgie', 'Corps médical de chirurgie'), 'Surgery', 620000),
  cc('KST-4200', names('Internal medicine physicians', 'Ärztlicher Dienst Innere Medizin', 'Corps médical de médecine interne'), 'Internal medicine', 540000),
  cc('KST-4300', names('Emergency physicians', 'Ärztlicher Dienst Notfall', 'Corps médical des urgences'), 'Emergency', 380000),
  cc('KST-4400', names('Anaesthesia', 'Anästhesie', 'Anesthésiologie'), 'Surgery', 410000),
  cc('KST-4500', names('Cardiology', 'Kardiologie', 'Cardiologie'), 'Internal medicine', 330000),
  cc('KST-5100', names('Nursing surgery', 'Pflege Chirurgie', 'Soins infirmiers chirurgie'), 'Surgery', 720000),
  cc('KST-5200', names('Nursing internal medicine', 'Pflege Innere Medizin', 'Soins infirmiers médecine interne'), 'Internal medicine', 690000),
  cc('KST-5300', names('Intensive care', 'Intensivpflege', 'Soins intensifs'), 'Intensive care', 560000),
  cc('KST-6100', names('Physiotherapy', 'Physiotherapie', 'Physiothérapie'), 'Rehabilitation', 190000),
  cc('KST-6200', names('Occupational therapy', 'Ergotherapie', null), 'Rehabilitation', 120000),
  cc('KST-6300', names('Neurorehabilitation', 'Neurorehabilitation', 'Neuroréadaptation'), 'Rehabilitation', 260000),
  cc('KST-7100', names('Operating theatres', 'Operationssäle', 'Blocs opératoires'), 'Surgery', 480000),
];

/** Cost centres that treat patients (cases and materials are booked on them). */
export const CLINICAL_COST_CENTRE_IDS: readonly string[] = [
  'KST-4100', 'KST-4200', 'KST-4300', 'KST-4400', 'KST-4500', 'KST-5100', 'KST-5200', 'KST-5300', 'KST-6100', 'KST-6300',
];

function cc(id: string, name: Names, department: string, monthlyBudgetChf: number, active = true): CostCentreSeed {
  return { id, name, department, monthlyBudgetChf, active };
}

/** A SwissDRG-like case group. */
export interface DrgSeed {
  code: string;
  name: Names;
  /** drg_groups node the code belongs to. */
  mdcNode: string;
  costWeight: number;
  costCentreId: string;
}

/** The DRG codes cases are grouped into. */
export const DRGS: readonly DrgSeed[] = [
  drg('I47B', names('Hip replacement without extreme complications', 'Hüftendoprothese ohne äusserst schwere CC', 'Prothèse de hanche sans CC extrêmement sévères'), 'mdc_08_surgical', 1.92, 'KST-4100'),
  drg('I44B', names('Knee replacement', 'Implantation einer Endoprothese am Kniegelenk', "Implantation d'une endoprothèse du genou"), 'mdc_08_surgical', 1.71, 'KST-4100'),
  drg('I68D', names('Non-surgical spine disorders', 'Nicht operativ behandelte Erkrankungen der Wirbelsäule', 'Affections du rachis traitées sans chirurgie'), 'mdc_08_medical', 0.68, 'KST-4200'),
  drg('F24B', names('Coronary intervention with stent', 'Perkutane Koronarintervention mit Stent', 'Intervention coronarienne percutanée avec stent'), 'mdc_05', 1.34, 'KST-4500'),
  drg('F12E', names('Pacemaker implantation', 'Implantation eines Herzschrittmachers', "Implantation d'un stimulateur cardiaque"), 'mdc_05', 1.52, 'KST-4500'),
  drg('F62C', names('Heart failure', 'Herzinsuffizienz', 'Insuffisance cardiaque'), 'mdc_05', 0.87, 'KST-4200'),
  drg('G67D', names('Oesophagitis and gastroenteritis', 'Ösophagitis und Gastroenteritis', 'Œsophagite et gastro-entérite'), 'mdc_06', 0.49, 'KST-4300'),
  drg('G07C', names('Appendectomy', 'Appendektomie', 'Appendicectomie'), 'mdc_06', 0.83, 'KST-4100'),
  drg('B70F', names('Stroke', 'Apoplexie', 'Accident vasculaire cérébral'), 'mdc_01', 1.08, 'KST-6300'),
  drg('E65C', names('Chronic obstructive pulmonary disease', 'Chronisch-obstruktive Atemwegserkrankung', 'Bronchopneumopathie chronique obstructive'), 'mdc_04', 0.79, 'KST-4200'),
];

function drg(code: string, name: Names, mdcNode: string, costWeight: number, costCentreId: string): DrgSeed {
  return { code, name, mdcNode, costWeight, costCentreId };
}

/** Payers that receive invoices. */
export const PAYERS: readonly string[] = ['CSS', 'Helsana', 'SWICA', 'Groupe Mutuel', 'Sanitas', 'Visana', 'Kanton', 'SUVA'];

/** Months covered by the demo Gold data (the KLS is built on 2026-11-01). */
export const DEMO_MONTHS: readonly string[] = [
  '2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06', '2026-07', '2026-08', '2026-09', '2026-10',
];

