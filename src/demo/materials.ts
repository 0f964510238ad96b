import { names, type Names } from './content.js';

/** A catalogue article; dim_materials cycles through these, gold tables use the first ones. */
export interface MaterialSeed {
  name: Names;
  category: string;
  unitPrice: number;
}

const IMPLANT = 'Implant';
const CONSUMABLE = 'Consumable';
const STERILE = 'Sterile goods';
const DRUG = 'Drug';
const LAB = 'Laboratory';
const REHAB = 'Rehabilitation aids';

/** The material catalogue; index 0 is M-2001. */
export const MATERIAL_CATALOGUE: readonly MaterialSeed[] = [
  m('Cementless hip prosthesis stem', 'Hüftprothese Schaft zementfrei', 'Tige de prothèse de hanche sans ciment', IMPLANT, 2450),
  m('Total knee prosthesis', 'Knie-Totalendoprothese', 'Prothèse totale du genou', IMPLANT, 3890),
  m('Drug-eluting coronary stent', 'Koronarstent medikamentenbeschichtet', 'Stent coronaire à élution médicamenteuse', IMPLANT, 1180),
  m('Dual-chamber pacemaker', 'Herzschrittmacher Zweikammer', 'Stimulateur cardiaque double chambre', IMPLANT, 4200),
  m('Titanium osteosynthesis plate', 'Osteosyntheseplatte Titan', "Plaque d'ostéosynthèse en titane", IMPLANT, 640),
  m('Cortical screw 3.5 mm', 'Kortikalisschraube 3,5 mm', 'Vis corticale 3,5 mm', IMPLANT, 38.5),
  m('Intraocular lens', 'Intraokularlinse', 'Lentille intraoculaire', IMPLANT, 310),
  m('Nitrile examination gloves (100 pcs)', 'Untersuchungshandschuhe Nitril (100 Stk.)', "Gants d'examen en nitrile (100 pces)", CONSUMABLE, 9.8),
  m('Sterile surgical gloves, powder-free', 'OP-Handschuhe steril, puderfrei', 'Gants chirurgicaux stériles, non poudrés', CONSUMABLE, 1.45),
  m('Peripheral IV cannula 20G', 'Venenverweilkanüle 20G', 'Cathéter veineux périphérique 20G', CONSUMABLE, 2.1),
  m('Infusion set', 'Infusionsbesteck', 'Set de perfusion', CONSUMABLE, 3.4),
  m('Syringe 10 ml', 'Spritze 10 ml', 'Seringue 10 ml', CONSUMABLE, 0.22),
  m('Sterile wound dressing 10x10 cm', 'Wundverband steril 10x10 cm', 'Pansement stérile 10x10 cm', CONSUMABLE, 0.95),
  m('Absorbable suture 3-0', 'Nahtmaterial resorbierbar 3-0', 'Fil de suture résorbable 3-0', CONSUMABLE, 7.6),
  m('Silicone urinary catheter', 'Blasenkatheter Silikon', 'Sonde urinaire en silicone', CONSUMABLE, 6.2),
  m('Surgical mask type IIR', 'Chirurgische Maske Typ IIR', 'Masque chirurgical type IIR', CONSUMABLE, 0.18),
  m('Disposable surgical drape set', 'Einmal-OP-Abdeckset', 'Champ opératoire à usage unique', STERILE, 24.9),
  m('Surgical stapler', 'Klammernahtgerät', 'Agrafeuse chirurgicale', STERILE, 385),
  m('Trocar 12 mm', 'Trokar 12 mm', 'Trocart 12 mm', STERILE, 89),
  m('Electrosurgical electrode', 'Elektrochirurgie-Elektrode', "Électrode d'électrochirurgie", STERILE, 42),
  m('Paracetamol 1 g IV', 'Paracetamol 1 g i.v.', 'Paracétamol 1 g i.v.', DRUG, 2.9),
  m('Amoxicillin/clavulanic acid 2.2 g', 'Amoxicillin/Clavulansäure 2,2 g', 'Amoxicilline/acide clavulanique 2,2 g', DRUG, 11.4),
  m('Heparin 5000 IU', 'Heparin 5000 IE', 'Héparine 5000 UI', DRUG, 4.35),
  m('Propofol 1% 50 ml', 'Propofol 1 % 50 ml', 'Propofol 1 % 50 ml', DRUG, 8.7),
  m('Morphine 10 mg', 'Morphin 10 mg', 'Morphine 10 mg', DRUG, 3.15),
  m('Saline 0.9% 1000 ml', 'Kochsalzlösung 0,9 % 1000 ml', 'Solution saline 0,9 % 1000 ml', DRUG, 1.9),
  m("Lactated Ringer's 1000 ml", 'Ringer-Laktat 1000 ml', 'Ringer lactate 1000 ml', DRUG, 2.25),
  m('Insulin glargine pen', 'Insulin Glargin Pen', "Stylo d'insuline glargine", DRUG, 19.8),
  m('Red cell concentrate', 'Erythrozytenkonzentrat', 'Concentré érythrocytaire', DRUG, 210),
  m('Human albumin 20%', 'Humanalbumin 20 %', 'Albumine humaine 20 %', DRUG, 96),
  m('EDTA blood collection tube', 'Blutentnahmeröhrchen EDTA', 'Tube de prélèvement EDTA', LAB, 0.34),
  m('Blood culture bottle', 'Blutkulturflasche', "Flacon d'hémoculture", LAB, 7.9),
  m('Troponin rapid test', 'Troponin-Schnelltest', 'Test rapide de troponine', LAB, 26),
  m('SARS-CoV-2 antigen test', 'SARS-CoV-2-Antigentest', 'Test antigénique SARS-CoV-2', LAB, 4.5),
  m('Urine test strips', 'Urinteststreifen', 'Bandelettes urinaires', LAB, 0.6),
  m('Plaster bandage 10 cm', 'Gipsbinde 10 cm', 'Bande plâtrée 10 cm', CONSUMABLE, 3.1),
  m('Compression stocking', 'Kompressionsstrumpf', 'Bas de compression', CONSUMABLE, 28),
  m('Walking sticks (pair)', 'Gehstöcke (Paar)', 'Cannes de marche (paire)', REHAB, 34),
  m('Resistance band, medium', 'Therapieband mittel', null, REHAB, 12.5),
  m('Folding rollator', 'Rollator faltbar', 'Déambulateur pliable', REHAB, 189),
];

function m(en: string, de: string, fr: string | null, category: string, unitPrice: number): MaterialSeed {
  return { name: names(en, de, fr), category, unitPrice };
}

/** The id of the material at catalogue index `index` (0 → M-2001). */
export function materialId(index: number): string {
  return `M-${2001 + index}`;
}

/** True for categories that are implanted into the patient. */
export function isImplantCategory(category: string): boolean {
  return category === IMPLANT;
}
