import { bath } from 'bath-es5';
import * as cookie from 'cookie';
import type { OpenAPIRouter, Operation, ParsedRequest, Request } from 'openapi-backend';

// openapi-backend's own helpers, declared in package.json with the library's version ranges, so that path
// parameters and cookies are parsed exactly as it parses them (test/unit/request-parser.test.ts checks that
// these are the very copies the library loads)

type Query = Record<string, unknown>;
type QueryParameter = { name: string; in: string; content?: Record<string, unknown>; explode?: boolean; style?: string };

/** A copy of plain objects and arrays (query values are strings, arrays and, after coercion, numbers and objects). */
function copy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key]);
    return out as T;
  }
  return value;
}

/** What parsing a request of one operation needs, worked out once per operation (the contract index keeps it). */
export interface ParseFacts {
  /** The path template's parameter pattern; null for a template without parameters. */
  readonly pathPattern: ReturnType<typeof bath> | null;
  /** Query parameters by name: the library takes the first query parameter of a name that is not a $ref. */
  readonly queryParameters: ReadonlyMap<string, QueryParameter>;
}

/** The parse facts of `operation`. */
export function parseFactsOf(operation: Operation): ParseFacts {
  const queryParameters = new Map<string, QueryParameter>();
  for (const parameter of (operation.parameters ?? []) as QueryParameter[]) {
    if (!('$ref' in parameter) && parameter.in === 'query' && !queryParameters.has(parameter.name)) queryParameters.set(parameter.name, parameter);
  }
  // a template without parameters matches to {} or not at all (null): {} either way
  return { pathPattern: operation.path.includes('{') ? bath(operation.path) : null, queryParameters };
}

/**
 * openapi-backend's `parseRequest` for requests whose query is an object (as the adapter always passes it), with
 * the per-call work done once (`factsOf`, kept by the contract index): the path-parameter pattern of each operation
 * is compiled once instead of on every call, query parameters are looked up in a map, and the query-string round
 * trip the library computes and then discards is skipped. handleRequest parses every request three times (before
 * routing, after it, after coercion); this was an eighth of a small request's CPU. Same results as the library (compared in
 * test/unit/request-parser.test.ts); a request with a string query goes to the library's own code.
 */
export function compiledParseRequest(router: OpenAPIRouter, factsOf: (operation: Operation) => ParseFacts = parseFactsOf): (req: Request, operation?: Operation) => ParsedRequest {
  const original = router.parseRequest.bind(router);
  return (req, operation) => {
    if (typeof req.query !== 'object' || req.query === null) return original(req, operation);
    let requestBody = req.body;
    if (req.body && typeof req.body !== 'object') {
      try {
        requestBody = JSON.parse(String(req.body));
      } catch {
        // like the library: validation reports a body that does not parse
      }
    }
    const headers: Record<string, string | string[]> = {};
    for (const name of Object.keys(req.headers)) headers[name.toLowerCase()] = req.headers[name]!;
    // the library joins [header].flat() without undefined entries; most requests carry no cookie
    const cookieHeader = headers['cookie'];
    const cookies = cookie.parse(
      cookieHeader === undefined ? '' : typeof cookieHeader === 'string' ? cookieHeader : cookieHeader.filter((c) => c !== undefined).join('; '),
    );
    const query = copy(req.query) as Query;
    const normalized = router.normalizeRequest(req);
    let params: Record<string, string> = {};
    if (operation !== undefined) {
      const { pathPattern, queryParameters: byName } = factsOf(operation);
      if (pathPattern !== null) params = pathPattern.params(router.normalizePath(normalized.path)) ?? {};
      for (const name in query) {
        if (!query[name]) continue;
        const parameter = byName.get(name);
        if (parameter === undefined) continue;
        if (parameter.content?.['application/json'] !== undefined) {
          const raw = query[name];
          if (typeof raw === 'string') {
            try {
              query[name] = JSON.parse(raw);
            } catch {
              // left raw: validation reports malformed JSON
            }
          }
        } else if (parameter.explode === false) {
          const raw = query[name];
          if (Array.isArray(raw) && raw.length > 1) continue;
          const value = Array.isArray(raw) ? raw[0] : raw;
          if (typeof value !== 'string') continue;
          let decoded = value.replace(/%2C/g, ',');
          if (parameter.style === 'spaceDelimited') decoded = decoded.replace(/ /g, ',').replace(/%20/g, ',');
          if (parameter.style === 'pipeDelimited') decoded = decoded.replace(/\|/g, ',').replace(/%7C/g, ',');
          query[name] = decoded.split(',');
        }
      }
    }
    return { ...normalized, params, headers, query, cookies, requestBody } as ParsedRequest;
  };
}
