import type Koa from 'koa';
import querystring from 'node:querystring';

type Query = Record<string, string | string[]>;

const PARSED = Symbol('parsed query');

/**
 * The most parameters a request's query may hold (400 past it, before the query is validated, which walks every
 * parameter several times). The most an operation takes is the export's: 64 `filter` values besides a few others.
 */
export const MAX_QUERY_PARAMETERS = 256;

/** How many parameters `querystring` holds at the most (its `&`-separated parts), without parsing it. */
export function queryParts(querystring: string): number {
  if (querystring === '') return 0;
  let parts = 1;
  for (let at = querystring.indexOf('&'); at !== -1; at = querystring.indexOf('&', at + 1)) parts += 1;
  return parts;
}

interface ParsedQuery {
  from: string;
  query: Query;
}

/**
 * Makes `ctx.query` of `app`'s requests Node's `querystring.parse` of the query string, parsed once per request,
 * without querystring's default bound of 1,000 parameters (past it the rest would be dropped unseen; the adapter
 * refuses more than MAX_QUERY_PARAMETERS instead). Koa's own parser asks URLSearchParams for every value of each name
 * in turn, which walks all parameters once per name: the time grows with the square of their count, 31 ms for
 * 2,000 distinct names on the parser alone, 90 ms for 4,000 (Node's 16 KB header limit lets about 3,800 through,
 * with names of two characters). This one is linear and decodes the same way (`+` as a space, a malformed escape
 * kept as written, invalid UTF-8 as U+FFFD): one value is a string, a repeated name an array of its values in
 * order. The object has no prototype: a parameter named `constructor` or `__proto__` is a parameter like any other.
 */
export function parseQueryOnce(app: Koa): void {
  Object.defineProperty(app.request, 'query', {
    configurable: true,
    get(this: Koa.Request & { [PARSED]?: ParsedQuery }): Query {
      const from = this.querystring;
      const parsed = this[PARSED];
      if (parsed !== undefined && parsed.from === from) return parsed.query;
      const query = querystring.parse(from, '&', '=', { maxKeys: 0 }) as Query;
      this[PARSED] = { from, query };
      return query;
    },
    set(this: Koa.Request, query: querystring.ParsedUrlQueryInput) {
      this.querystring = querystring.stringify(query);
    },
  });
}
