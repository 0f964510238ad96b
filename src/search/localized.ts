/** Text in the three languages, every variant filled (the contract's `LocalizedText`). */
export interface LocalizedText {
  en: string;
  de: string;
  fr: string;
}

/** The three languages. */
export type Locale = keyof LocalizedText;

const textOrNull = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * Builds a LocalizedText from three nullable columns: a missing variant is filled from English
 * (English itself from German, then French, then `fallback`).
 */
export function localizedText(en: unknown, de: unknown, fr: unknown, fallback: string): LocalizedText {
  const english = textOrNull(en) ?? textOrNull(de) ?? textOrNull(fr) ?? fallback;
  return { en: english, de: textOrNull(de) ?? english, fr: textOrNull(fr) ?? english };
}

/** Like localizedText, but null when all three variants are missing. */
export function optionalLocalizedText(en: unknown, de: unknown, fr: unknown): LocalizedText | null {
  if (textOrNull(en) === null && textOrNull(de) === null && textOrNull(fr) === null) return null;
  return localizedText(en, de, fr, '');
}
