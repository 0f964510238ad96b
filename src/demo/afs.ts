import path from 'node:path';
import { Document, isMap, isScalar, visit } from 'yaml';
import { writeFileAtomic } from './files.js';
import { SIGNALS, type AfsText } from './signals.js';

/** A perspective, thesis or verdict definition; its contract is free-form. */
export interface AfsOtherDefinition {
  probe_id: string;
  type: 'perspective' | 'thesis' | 'verdict';
  name: AfsText;
  description?: AfsText;
  contract: Record<string, unknown>;
}

/** The non-signal AFS definitions; the thesis is the example of docs/signal-language.md. */
export const OTHER_DEFINITIONS: readonly AfsOtherDefinition[] = [
  {
    probe_id: 'assessment_revenue_cycle',
    type: 'perspective',
    name: { en: 'Revenue cycle assessment', de: 'Beurteilung des Erlöszyklus', fr: 'Évaluation du cycle des recettes' },
    description: {
      en: 'Follows a case from discharge to payment: unbilled cases and late invoices.',
      de: 'Verfolgt einen Fall vom Austritt bis zur Zahlung: nicht abgerechnete Fälle und verspätete Rechnungen.',
      fr: "Suit un cas de la sortie jusqu'au paiement : cas non facturés et factures tardives.",
    },
    contract: { signals: ['probe_unbilled_cases', 'probe_late_billing'], entity_types: ['Case', 'BillingEvent'] },
  },
  {
    probe_id: 'hyp_revenue_leakage',
    type: 'thesis',
    name: {
      en: 'Revenue leaks between discharge and billing',
      de: 'Erlöse gehen zwischen Austritt und Abrechnung verloren',
      fr: 'Des recettes se perdent entre la sortie et la facturation',
    },
    contract: { signals: ['probe_unbilled_cases'] },
  },
  {
    probe_id: 'diag_billing_backlog',
    type: 'verdict',
    name: { en: 'Billing backlog after discharge', de: 'Abrechnungsrückstand nach Austritt', fr: 'Retard de facturation après la sortie' },
    description: {
      en: 'The revenue leakage thesis holds: discharged cases wait too long for their invoice.',
      de: 'Die These der Erlösverluste trifft zu: Entlassene Fälle warten zu lange auf ihre Rechnung.',
      fr: 'La thèse des pertes de recettes se confirme : les cas sortis attendent trop longtemps leur facture.',
    },
    contract: { theses: ['hyp_revenue_leakage'], signals: ['probe_unbilled_cases', 'probe_late_billing'], conclusion: 'confirmed' },
  },
];

const FOLDERS = { signal: 'signals', perspective: 'perspectives', thesis: 'theses', verdict: 'verdicts' } as const;

const THESIS_COMMENT = ' theses/hyp_revenue_leakage.yaml — a thesis combines signals; it is listed and loaded,\n never compiled.';

/** Serialises an AFS definition in the layout of the examples in docs/signal-language.md (flow lists and condition maps, quoted operators, optional leading comment). */
export function afsYaml(definition: object, comment?: string): string {
  const document = new Document(definition);
  visit(document, {
    Seq(_, sequence) {
      if (sequence.items.every((item) => isScalar(item))) sequence.flow = true;
      for (const item of sequence.items) if (isMap(item)) item.flow = true;
    },
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.value === 'op' && isScalar(pair.value) && /^[=!<>]/.test(String(pair.value.value))) {
        pair.value.type = 'QUOTE_DOUBLE';
      }
    },
  });
  const header = comment ? comment.split('\n').map((line) => `#${line}\n`).join('') : '';
  return header + document.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** Writes every AFS file under `afsDir`; returns their absolute paths. */
export function writeAfs(afsDir: string): string[] {
  const files: string[] = [];
  const write = (type: keyof typeof FOLDERS, probeId: string, text: string): void => {
    const file = path.resolve(afsDir, FOLDERS[type], `${probeId}.yaml`);
    writeFileAtomic(file, text);
    files.push(file);
  };
  for (const signal of SIGNALS) write('signal', signal.probe_id, afsYaml(signal));
  for (const definition of OTHER_DEFINITIONS) {
    write(definition.type, definition.probe_id, afsYaml(definition, definition.type === 'thesis' ? THESIS_COMMENT : undefined));
  }
  return files;
}

