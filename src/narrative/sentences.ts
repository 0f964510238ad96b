/** A narrative has at most this many sentences (API description: 3 to 4). */
export const MAX_NARRATIVE_SENTENCES = 4;

// ICU (Intl.Segmenter) ends a sentence after every ". " it cannot rule out; V8 ignores the `ss` suppression
// extension, so abbreviations and German ordinal dates ("am 12. Oktober") are rejoined here.
const ABBREVIATIONS: Record<string, readonly string[]> = {
  en: ['mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'no', 'vs', 'approx', 'ca', 'e.g', 'i.e', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec'],
  de: ['dr', 'prof', 'nr', 'bzw', 'ca', 'ggf', 'inkl', 'exkl', 'vgl', 'mio', 'mrd', 'fr', 'st', 'z.b', 'd.h', 'u.a', 'sog', 'evtl', 'bspw', 'jan', 'feb', 'febr', 'apr', 'aug', 'sept', 'okt', 'nov', 'dez'],
  fr: ['m', 'mme', 'mlle', 'dr', 'pr', 'env', 'cf', 'p.ex', 'ex', 'no', 'n°', 'janv', 'févr', 'avr', 'juil', 'sept', 'oct', 'nov', 'déc'],
};

/** True when the segment's last word does not end a sentence (abbreviation, initial, German ordinal). */
function endsWithoutSentenceEnd(segment: string, language: string): boolean {
  const trimmed = segment.trimEnd();
  if (!trimmed.endsWith('.')) return false;
  const lastWord = (/(\S+)\.$/u.exec(trimmed)?.[1] ?? '').toLowerCase();
  if (/^\p{L}$/u.test(lastWord)) return true; // an initial: "J. Muster", "z. B."
  if (language === 'de' && /^\d{1,2}$/.test(lastWord)) return true; // "am 12. Oktober"
  return (ABBREVIATIONS[language] ?? []).includes(lastWord.replace(/\.$/, ''));
}

/**
 * The first `max` sentences of `text`, split by the locale's sentence rules (`Intl.Segmenter`) with
 * abbreviations rejoined, and runs of white space (line breaks, paragraphs) folded into single spaces.
 */
export function firstSentences(text: string, locale: string, max: number = MAX_NARRATIVE_SENTENCES): string {
  const language = locale.slice(0, 2).toLowerCase();
  const segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
  const sentences: string[] = [];
  let pending = '';
  for (const { segment } of segmenter.segment(text.trim())) {
    pending += segment;
    if (endsWithoutSentenceEnd(pending, language)) continue;
    const sentence = pending.replace(/\s+/g, ' ').trim();
    pending = '';
    if (sentence === '') continue;
    sentences.push(sentence);
    if (sentences.length === max) return sentences.join(' ');
  }
  const rest = pending.replace(/\s+/g, ' ').trim();
  if (rest !== '') sentences.push(rest);
  return sentences.join(' ');
}
