import type { ValidateFunction } from 'ajv';
import { localizedText, optionalLocalizedText, type LocalizedText } from './localized.js';
import type { SearchKind } from './search-kinds.js';

/** One search hit as the API sends it (the contract's `SearchItem`). */
export interface SearchHit {
  id: string;
  kind: SearchKind;
  name: LocalizedText;
  description?: LocalizedText;
  meta?: Record<string, unknown>;
}

/** The display columns of one `search_items` row. */
export interface SearchItemRow {
  kind: SearchKind;
  item_id: string;
  name_en: string | null;
  name_de: string | null;
  name_fr: string | null;
  description_en: string | null;
  description_de: string | null;
  description_fr: string | null;
  meta: string | null;
}

/** Maps a `search_items` row to the API's SearchItem: missing variants filled from English, meta only when an object. */
export function toApiSearchHit(row: SearchItemRow): SearchHit {
  const hit: SearchHit = { id: row.item_id, kind: row.kind, name: localizedText(row.name_en, row.name_de, row.name_fr, row.item_id) };
  const description = optionalLocalizedText(row.description_en, row.description_de, row.description_fr);
  if (description !== null) hit.description = description;
  const meta = parseObject(row.meta);
  if (meta !== null) hit.meta = meta;
  return hit;
}

function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The contract's check of one hit, and which contract it is. */
export interface SearchHitCheck {
  /** Identity of the contract document checked against (its ETag): a sidecar checked against another one is rebuilt. */
  readonly contract: string;
  /** What is wrong with `hit`, or null when it is a valid `SearchItem`. */
  check(hit: SearchHit): string | null;
}

/**
 * The contract's `SearchItem` schema as a check. `contract`: the document's identity (its ETag); `validator`: the
 * schema's validator, asked for on the first hit checked, in the first index build, so that compiling it (~60 ms)
 * does not delay the server's start.
 */
export function searchHitCheck(contract: string, validator: () => ValidateFunction): SearchHitCheck {
  let validate: ValidateFunction | undefined;
  return {
    contract,
    check(hit) {
      validate ??= validator();
      return validate(hit) ? null : (validate.errors ?? []).map((e) => `${e.instancePath || '(item)'} ${e.message ?? 'is invalid'}`).join('; ');
    },
  };
}
