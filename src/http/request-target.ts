import type Koa from 'koa';
import querystring from 'node:querystring';
import type { ValidationIssue } from '../common/problems.js';

// The request target as the server reads it: its query, parsed once and bounded, and its path, whose segments are
// checked before anything decodes them.

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
 * without querystring's default bound of 1,000 parameters (past it the rest would be dropped unseen; the operation server
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

/** One character RFC 3986 allows in a path as it is (`pchar` and `/`); anything else must be percent-encoded. */
const PATH_CHARACTER = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

/** A path of characters allowed as they are, without escapes: nothing in it to refuse (most requests). */
const PLAIN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;

/** A well-formed percent-encoded octet. */
const PERCENT_OCTET = /^%[0-9A-Fa-f]{2}/;

/**
 * The request path as a valid URI reference (RFC 3986), for a problem's `instance`: every character a URI may not
 * hold as it is (`[`, `|`, a backtick, a space, non-ASCII) and every `%` that starts no percent-encoded octet are
 * percent-encoded; a path that is already valid is returned unchanged.
 */
export function asUriReference(path: string): string {
  let out = '';
  for (let i = 0; i < path.length; i += 1) {
    const char = path[i]!;
    if (char === '%') out += PERCENT_OCTET.test(path.slice(i, i + 3)) ? '%' : '%25';
    else if (PATH_CHARACTER.test(char)) out += char;
    else {
      // a lone surrogate cannot be UTF-8 encoded: it is written as U+FFFD's octets
      const code = path.codePointAt(i)!;
      const whole = code > 0xffff ? path.slice(i, i + 2) : char;
      if (code > 0xffff) i += 1;
      out += encodeURIComponent(code >= 0xd800 && code <= 0xdfff ? '\ufffd' : whole);
    }
  }
  return out;
}

/**
 * Why the path of a request routed to the path template `template` cannot be read, as a validation issue naming
 * the parameter (or '' for a literal segment); null when every segment is made of characters a URI may hold and
 * decodes to UTF-8 text. A segment with `[`, `]`, `{`, `}`, `|`, `^`, `\`, a backtick or another character outside
 * RFC 3986, or with a malformed or overlong escape (`%`, `%zz`, `%c0%ae`), is refused before anything reads it.
 */
export function pathSegmentIssue(path: string, template: string): ValidationIssue | null {
  if (PLAIN_PATH.test(path)) return null;
  const segments = path.split('/');
  const names = template.split('/');
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i]!;
    const reason = segmentProblem(segment);
    if (reason === null) continue;
    const templated = /^\{(.+)\}$/.exec(names[i] ?? '');
    return { in: 'path', name: templated?.[1] ?? '', message: reason };
  }
  return null;
}

function segmentProblem(segment: string): string | null {
  for (let i = 0; i < segment.length; i += 1) {
    const char = segment[i]!;
    if (char === '%') {
      if (!PERCENT_OCTET.test(segment.slice(i, i + 3))) return 'holds a "%" that starts no percent-encoded octet (%XX)';
      i += 2;
    } else if (!PATH_CHARACTER.test(char)) {
      return `holds ${JSON.stringify(char)}, which a URI path may only carry percent-encoded`;
    }
  }
  try {
    decodeURIComponent(segment);
  } catch {
    return 'is not percent-encoded UTF-8 text';
  }
  return null;
}
