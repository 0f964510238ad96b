import type { components } from '../../generated/openapi.js';

/** `{en, de, fr}` as the contract sends it. */
export type LocalizedText = components['schemas']['LocalizedText'];

/** The three language columns of a KLS row (`name_en`, `name_de`, `name_fr`), any of them NULL. */
export interface NameColumns {
  name_en: string | null;
  name_de: string | null;
  name_fr: string | null;
}

/** A row's names as LocalizedText: a missing variant is filled from English, then German, French, `fallback`. */
export function toApiLocalizedName(row: NameColumns, fallback: string): LocalizedText {
  const first = row.name_en ?? row.name_de ?? row.name_fr ?? fallback;
  return { en: row.name_en ?? first, de: row.name_de ?? first, fr: row.name_fr ?? first };
}

/** Case- and accent-insensitive form of a text, for substring search (`Ärzte` → `arzte`). */
export function foldForSearch(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
