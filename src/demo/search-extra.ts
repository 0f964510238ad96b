import { names, type Names } from './content.js';
import type { Random } from './random.js';
import { SEARCH_KINDS, type SearchKind } from './search.js';
import type { SqlValue } from './sqlite.js';

const TOPICS: readonly Names[] = [
  names('Case costs', 'Fallkosten', 'Coûts des cas'),
  names('Billing backlog', 'Abrechnungsrückstand', 'Retard de facturation'),
  names('Implants', 'Implantate', 'Implants'),
  names('Nursing hours', 'Pflegestunden', 'Heures de soins'),
  names('Budget variance', 'Budgetabweichung', 'Écart budgétaire'),
  names('Material consumption', 'Materialverbrauch', 'Consommation de matériel'),
  names('Discharge letters', 'Austrittsberichte', 'Lettres de sortie'),
  names('Cost centre report', 'Kostenstellenbericht', 'Rapport du centre de coûts'),
  names('Rehabilitation days', 'Rehabilitationstage', 'Journées de réadaptation'),
  names('Emergency admissions', 'Notfalleintritte', 'Admissions aux urgences'),
  names('Operating theatre use', 'OP-Auslastung', 'Occupation du bloc opératoire'),
  names('Length of stay', 'Aufenthaltsdauer', 'Durée de séjour'),
  names('Drug costs', 'Medikamentenkosten', 'Coûts des médicaments'),
  names('Overview', 'Übersicht', "Vue d'ensemble"),
];

const QUALIFIERS: readonly Names[] = [
  names('monthly', 'monatlich', 'mensuel'),
  names('by ward', 'nach Station', 'par unité'),
  names('by payer', 'nach Versicherer', 'par assureur'),
  names('trend', 'Verlauf', 'tendance'),
  names('outliers', 'Ausreisser', 'valeurs aberrantes'),
  names('forecast', 'Prognose', 'prévision'),
  names('Q3 2026', 'Q3 2026', 'T3 2026'),
];

const FIRST_NAMES = ['Anna', 'Lukas', 'Chloé', 'Noah', 'Léa', 'Jonas', 'Mia', 'Luca', 'Élodie', 'Reto', 'Seraina', 'Jürg', 'Zoé', 'Matteo'];
const LAST_NAMES = ['Müller', 'Meier', 'Schmid', 'Keller', 'Weber', 'Favre', 'Rochat', 'Bianchi', 'Gerber', 'Brunner', 'Perrin', 'Zürcher', 'Baumann', 'Rossi'];
const ROLES = ['Controller', 'Coder', 'Nurse manager', 'Physician', 'Billing clerk', 'Purchaser', 'Analyst'];

/** `count` generated search_items value arrays (table column order), spread round-robin over the nine kinds. */
export function* extraSearchValues(random: Random, count: number): Generator<SqlValue[]> {
  for (let index = 0; index < count; index++) {
    const kind: SearchKind = SEARCH_KINDS[index % SEARCH_KINDS.length] ?? 'glossary';
    const id = `${kind}_gen_${String(index + 1).padStart(7, '0')}`;
    const number = index + 1;
    if (kind === 'person') {
      const fullName = `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`;
      const role = random.pick(ROLES);
      yield [kind, id, fullName, fullName, fullName, role, null, null, JSON.stringify({ role, generated: true })];
      continue;
    }
    const topic = random.pick(TOPICS);
    const qualifier = random.pick(QUALIFIERS);
    const label = (lang: keyof Names): string | null => {
      const text = topic[lang];
      return text === null ? null : `${text} ${qualifier[lang] ?? ''} ${number}`.replace(/\s+/g, ' ');
    };
    const frName = index % 23 === 5 ? null : label('fr');
    const description = index % 3 === 0 ? `Generated ${kind} item ${number} about ${topic.en?.toLowerCase() ?? kind}.` : null;
    yield [kind, id, label('en'), label('de'), frName, description, null, null, JSON.stringify({ type: metaType(kind), generated: true })];
  }
}

function metaType(kind: SearchKind): string {
  switch (kind) {
    case 'probe': return 'signal';
    case 'hypothesis': return 'thesis';
    default: return kind;
  }
}
