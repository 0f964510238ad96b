import type { EntityRecords, LocalizedText, SignalInfo } from './enrichment.js';
import type { NarrativePrompt } from './language-model.js';

import type { NarrativeFinding, NarrativeLocale } from '../ports/outbound.js';

const LANGUAGE_NAMES: Record<NarrativeLocale, string> = { en: 'English', de: 'German (Deutsch, Swiss usage: no ß)', fr: 'French (français)' };
/** Evidence longer than this (as JSON) is cut in the prompt. */
const MAX_EVIDENCE_CHARS = 4000;
/** Output budget: 4 sentences need far less; the cut to 4 sentences happens after. */
const MAX_OUTPUT_TOKENS = 400;

/** Picks the text in `locale`, else English, else any language. */
export const pick = (value: LocalizedText | null, locale: NarrativeLocale): string | null =>
  value === null ? null : (value[locale] ?? value.en ?? value.de ?? value.fr);

/** The instructions and the material of one narrative: the finding, the signal and the entity's Gold records. */
export function buildNarrativePrompt(finding: NarrativeFinding, signal: SignalInfo | null, records: EntityRecords[], locale: NarrativeLocale): NarrativePrompt {
  const language = LANGUAGE_NAMES[locale];
  const system = [
    'You explain findings of a controlling system to the finance and controlling staff of a Swiss hospital.',
    `Write 3 to 4 complete sentences of plain prose in ${language} (locale "${locale}"): no heading, list, markdown or preamble.`,
    'Say what was found for which entity and month, why it matters (the severity and the amount at risk in CHF), and what the source records show.',
    'Use only the facts given; do not invent figures, names or dates.',
  ].join(' ');
  const evidenceJson = JSON.stringify(finding.evidence ?? null);
  const evidence = evidenceJson.length > MAX_EVIDENCE_CHARS ? `${evidenceJson.slice(0, MAX_EVIDENCE_CHARS)}…` : (finding.evidence ?? null);
  const material = {
    locale,
    finding: {
      signal_id: finding.probe_id,
      entity_type: finding.entity_type,
      entity_id: finding.entity_id,
      month: finding.time_bucket,
      severity: finding.severity,
      money_at_risk_chf: finding.money_at_risk,
      evidence,
    },
    signal: signal === null ? null : { name: pick(signal.name, locale), description: pick(signal.description, locale) },
    entity_records: records.map((group) => ({ source: group.table, label: pick(group.label, locale), rows: group.rows })),
  };
  const user = `Explain this finding in ${language}.\n\n${JSON.stringify(material, null, 2)}`;
  return { system, user, maxTokens: MAX_OUTPUT_TOKENS };
}
