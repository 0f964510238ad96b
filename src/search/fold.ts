/** Letters that NFD does not decompose but readers expect to match their ASCII spelling. */
const LIGATURES: Readonly<Record<string, string>> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ł: 'l', ı: 'i' };
const LIGATURE_PATTERN = /[ßæœøđłı]/g;

/**
 * Case- and accent-folds a text for matching: NFD, combining marks removed, lower case, the ligatures
 * ß/æ/œ/ø spelled out, runs of white space collapsed to one space, trimmed (`Coût` → `cout`).
 */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(LIGATURE_PATTERN, (letter) => LIGATURES[letter] ?? letter)
    .replace(/\s+/gu, ' ')
    .trim();
}
