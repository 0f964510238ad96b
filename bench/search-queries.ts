// Search queries of the search benches: realistic repeated ones, and unseen ones cut from a tenant's own names.
import Database from 'better-sqlite3';

/** Realistic jumpbar queries: rare and frequent words, accents, German and French, two words, one digit group. */
export const QUERIES = [
  'fallpauschale', 'cost', 'coût', 'implant', 'billing backlog', 'nursing', 'prognose', 'müller', 'overview 12', 'kostengewicht',
  'ward', 'q3 2026', 'stay', 'drug', 'notfall', 'rapport', 'séjour', 'outliers', 'anna', 'materialverbrauch', 'budget', 'trend 4',
];

/**
 * Distinct queries of 3-10 characters cut from the names of `kls`'s search items (deterministic), for loads of
 * queries the server has not seen: cycled, a query comes back only after all the others, long after it left
 * the 256-entry result cache (src/search/result-cache.ts). At most `wanted`; fewer when the names repeat.
 */
export function coldQueries(kls: string, wanted: number): string[] {
  const db = new Database(kls, { readonly: true });
  const names = db.prepare('SELECT coalesce(name_de, name_en, name_fr) FROM search_items ORDER BY item_id').pluck().all() as (string | null)[];
  db.close();
  const queries = new Set<string>();
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; queries.size < wanted && i < names.length * 4; i++) {
    const name = names[Math.floor(next() * names.length)] ?? '';
    const length = 3 + Math.floor(next() * 8);
    const start = Math.floor(next() * Math.max(1, name.length - length));
    const query = name.slice(start, start + length).trim().toLowerCase();
    if (query.length >= 3) queries.add(query);
  }
  return [...queries];
}

/** The jumpbar search path of `q` on `tenant`. */
export const searchPath = (tenant: string, q: string): string => `/api/jumpbar?mode=search&tenant=${encodeURIComponent(tenant)}&q=${encodeURIComponent(q)}`;
