import { COST_CENTRES, DRGS, localized, names, type Names } from './content.js';
import { MATERIAL_CATALOGUE, materialId } from './materials.js';
import type { Row } from './sqlite.js';

/** Rows of the taxonomies, taxonomy_nodes and taxonomy_members tables. */
export interface TaxonomyRows {
  taxonomies: Row[];
  nodes: Row[];
  members: Row[];
}

type NodeSeed = readonly [nodeId: string, parentId: string | null, name: Names];

/** Members per node: ids of cost centres (KST-), materials (M-), DRG codes or cases (C-). */
type MemberMap = Readonly<Record<string, readonly string[]>>;

const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `M-${from + i}`);

const COST_STRUCTURE_NODES: readonly NodeSeed[] = [
  ['personnel', null, names('Personnel costs', 'Personalkosten', 'Frais de personnel')],
  ['physicians', 'personnel', names('Physicians', 'Ärzteschaft', 'Corps médical')],
  ['nursing', 'personnel', names('Nursing', 'Pflege', 'Soins infirmiers')],
  ['therapy', 'personnel', names('Therapies', 'Therapien', 'Thérapies')],
  ['medical_material', null, names('Medical material', 'Medizinisches Material', 'Matériel médical')],
  ['implants', 'medical_material', names('Implants', 'Implantate', 'Implants')],
  ['drugs', 'medical_material', names('Drugs and blood products', 'Medikamente und Blutprodukte', 'Médicaments et produits sanguins')],
  ['consumables', 'medical_material', names('Consumables', 'Verbrauchsmaterial', 'Consommables')],
  ['medical_services', null, names('Medical services', 'Medizinische Dienste', 'Services médicaux')],
  ['operating_costs', null, names('Operating costs', 'Betriebskosten', "Coûts d'exploitation")],
  ['administration', 'operating_costs', names('Administration', 'Verwaltung', 'Administration')],
  ['hotel_services', 'operating_costs', names('Hotel services', 'Hotellerie', 'Hôtellerie')],
  ['infrastructure', 'operating_costs', names('Infrastructure and IT', 'Infrastruktur und Informatik', 'Infrastructure et informatique')],
];

/** KST-5300 sits in two cost_structure nodes, KST-3300 too; physicians fan out to 5 service lines, nursing 3, implants 2, therapy 1. */
const COST_STRUCTURE_MEMBERS: MemberMap = {
  physicians: ['KST-4100', 'KST-4200', 'KST-4300', 'KST-4400', 'KST-4500', 'KST-5300'],
  nursing: ['KST-5100', 'KST-5200', 'KST-5300'],
  therapy: ['KST-6100', 'KST-6200', 'KST-6300'],
  implants: range(2001, 2007),
  drugs: ['KST-3300', ...range(2021, 2030)],
  consumables: [...range(2008, 2020), ...range(2036, 2040)],
  medical_services: ['KST-3100', 'KST-3200', 'KST-3300', ...range(2031, 2035)],
  administration: ['KST-1100', 'KST-1200'],
  hotel_services: ['KST-2100', 'KST-2200', 'KST-2300'],
  infrastructure: ['KST-1300', 'KST-7100'],
};

const SERVICE_LINE_NODES: readonly NodeSeed[] = [
  ['surgery', null, names('Surgery', 'Chirurgie', 'Chirurgie')],
  ['orthopaedics', 'surgery', names('Orthopaedics', 'Orthopädie', 'Orthopédie')],
  ['visceral_surgery', 'surgery', names('Visceral surgery', 'Viszeralchirurgie', null)],
  ['internal_medicine', null, names('Internal medicine', 'Innere Medizin', 'Médecine interne')],
  ['cardiology', 'internal_medicine', names('Cardiology', 'Kardiologie', 'Cardiologie')],
  ['emergency', null, names('Emergency', 'Notfall', 'Urgences')],
  ['rehabilitation', null, names('Rehabilitation', 'Rehabilitation', 'Réadaptation')],
  ['diagnostics', null, names('Diagnostics', 'Diagnostik', 'Diagnostic')],
  ['laboratory', 'diagnostics', names('Laboratory medicine', 'Labormedizin', 'Médecine de laboratoire')],
  ['radiology', 'diagnostics', names('Radiology', 'Radiologie', 'Radiologie')],
];

/** KST-4100 is in surgery and orthopaedics; DRG codes are shared with drg_groups only. */
const SERVICE_LINE_MEMBERS: MemberMap = {
  surgery: ['KST-4100', 'KST-4400', 'KST-5100', 'KST-5300', 'KST-7100', 'M-2009', 'M-2017', 'M-2018', 'M-2019'],
  orthopaedics: ['KST-4100', 'KST-4400', 'M-2001', 'M-2002', 'M-2005', 'M-2006', 'I47B', 'I44B'],
  visceral_surgery: ['M-2018', 'M-2019', 'G07C'],
  internal_medicine: ['KST-4200', 'KST-5200', 'KST-5300', 'F62C', 'G67D', 'E65C', 'I68D'],
  cardiology: ['KST-4500', 'M-2003', 'M-2004', 'F24B', 'F12E'],
  emergency: ['KST-4300', 'KST-5300'],
  rehabilitation: ['KST-6100', 'KST-6200', 'KST-6300', 'M-2038', 'M-2039', 'M-2040', 'B70F'],
  laboratory: ['KST-3100', ...range(2031, 2035)],
  radiology: ['KST-3200'],
};

const DRG_NODES: readonly NodeSeed[] = [
  ['mdc_01', null, names('Nervous system', 'Nervensystem', 'Système nerveux')],
  ['mdc_04', null, names('Respiratory system', 'Atmungsorgane', 'Organes respiratoires')],
  ['mdc_05', null, names('Circulatory system', 'Kreislaufsystem', 'Appareil circulatoire')],
  ['mdc_06', null, names('Digestive system', 'Verdauungsorgane', 'Appareil digestif')],
  ['mdc_08', null, names('Musculoskeletal system', 'Bewegungsapparat', 'Appareil locomoteur')],
  ['mdc_08_surgical', 'mdc_08', names('Musculoskeletal, surgical partition', 'Bewegungsapparat, operative Partition', 'Appareil locomoteur, partition opératoire')],
  ['mdc_08_medical', 'mdc_08', names('Musculoskeletal, medical partition', 'Bewegungsapparat, medizinische Partition', 'Appareil locomoteur, partition médicale')],
];

/** Builds the three taxonomies; the first `caseCount` cases become `Case` members of their DRG's node. */
export function buildTaxonomies(cases: readonly Row[], caseCount = 12): TaxonomyRows {
  const drgMembers: Record<string, string[]> = {};
  for (const drg of DRGS) (drgMembers[drg.mdcNode] ??= []).push(drg.code);
  for (const row of cases.slice(0, caseCount)) {
    const drg = DRGS.find((candidate) => candidate.code === row['drg_code']);
    if (drg) (drgMembers[drg.mdcNode] ??= []).push(String(row['case_id']));
  }
  const caseNames = new Map(cases.map((row) => [String(row['case_id']), String(row['drg_code'])]));
  const rows: TaxonomyRows = { taxonomies: [], nodes: [], members: [] };
  const add = (taxonomyId: string, name: Names, nodes: readonly NodeSeed[], members: MemberMap): void => {
    rows.taxonomies.push({ taxonomy_id: taxonomyId, ...localized(name) });
    for (const [nodeId, parentId, nodeName] of nodes) {
      rows.nodes.push({ taxonomy_id: taxonomyId, node_id: nodeId, parent_id: parentId, ...localized(nodeName) });
      for (const memberId of members[nodeId] ?? []) {
        const member = describeMember(memberId, caseNames);
        rows.members.push({ taxonomy_id: taxonomyId, node_id: nodeId, member_id: memberId, dim: member.dim, ...localized(member.name) });
      }
    }
  };
  add('cost_structure', names('Cost structure', 'Kostenstruktur', 'Structure des coûts'), COST_STRUCTURE_NODES, COST_STRUCTURE_MEMBERS);
  add('service_lines', names('Service lines', 'Leistungsbereiche', 'Domaines de prestations'), SERVICE_LINE_NODES, SERVICE_LINE_MEMBERS);
  add('drg_groups', names('DRG groups', 'DRG-Gruppen', 'Groupes DRG'), DRG_NODES, drgMembers);
  return rows;
}

function describeMember(memberId: string, caseDrgs: ReadonlyMap<string, string>): { dim: string; name: Names } {
  const costCentre = COST_CENTRES.find((centre) => centre.id === memberId);
  if (costCentre) return { dim: 'CostCentre', name: costCentre.name };
  const material = MATERIAL_CATALOGUE.find((_, index) => materialId(index) === memberId);
  if (material) return { dim: 'Material', name: material.name };
  const drg = DRGS.find((candidate) => candidate.code === memberId);
  if (drg) return { dim: 'Drg', name: drg.name };
  const caseDrg = caseDrgs.get(memberId);
  if (caseDrg) return { dim: 'Case', name: names(`Case ${memberId} (${caseDrg})`, `Fall ${memberId} (${caseDrg})`, `Cas ${memberId} (${caseDrg})`) };
  throw new Error(`taxonomy member ${memberId} is unknown`);
}

