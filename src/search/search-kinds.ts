/** The nine searchable kinds (`search_items.kind`), in response order. */
export const SEARCH_KINDS = ['probe', 'hypothesis', 'taxonomy', 'entity', 'smebit', 'bitbundle', 'person', 'dimension', 'glossary'] as const;

/** One searchable kind. */
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** The response array that holds each kind. */
export const RESULT_KEY = {
  probe: 'probes',
  hypothesis: 'hypotheses',
  taxonomy: 'taxonomies',
  entity: 'entities',
  smebit: 'smebits',
  bitbundle: 'bitbundles',
  person: 'people',
  dimension: 'dimensions',
  glossary: 'glossary',
} as const satisfies Record<SearchKind, string>;

/** Name of a response array. */
export type ResultKey = (typeof RESULT_KEY)[SearchKind];

/** At most this many items per kind are returned (the contract's `maxItems`). */
export const PER_KIND_LIMIT = 10;

/** Whether a `search_items.kind` value is one of the nine kinds. */
export const isSearchKind = (value: unknown): value is SearchKind => typeof value === 'string' && (SEARCH_KINDS as readonly string[]).includes(value);
