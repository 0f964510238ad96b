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

/**
 * openapi-backend's `parseRequest` for requests whose query is an object (as the adapter always passes it), with
 * the per-call work done once: the path-parameter pattern of each operation is compiled once instead of on every
 * call, query parameters are looked up in a map, and the query-string round trip the library computes and then
 * discards is skipped. handleRequest parses every request three times (before routing, after it, after
 * coercion); this was an eighth of a small request's CPU. Same results as the library (compared in
 * test/unit/request-parser.test.ts); a request with a string query goes to the library's own code.
 */
export function compiledParseRequest(router: OpenAPIRouter): (req: Request, operation?: Operation) => ParsedRequest {
  const original = router.parseRequest.bind(router);
  const pathParams = new Map<string, ReturnType<typeof bath>>();
  const queryParameters = new WeakMap<Operation, Map<string, QueryParameter>>();
  const parametersOf = (operation: Operation): Map<string, QueryParameter> => {
    let byName = queryParameters.get(operation);
    if (byName === undefined) {
      byName = new Map();
      for (const parameter of (operation.parameters ?? []) as QueryParameter[]) {
        // the library takes the first query parameter of that name that is not a $ref
        if (!('$ref' in parameter) && parameter.in === 'query' && !byName.has(parameter.name)) byName.set(parameter.name, parameter);
      }
      queryParameters.set(operation, byName);
    }
    return byName;
  };
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
      // a template without parameters matches to {} or not at all (null): {} either way
      if (operation.path.includes('{')) {
        let pattern = pathParams.get(operation.path);
        if (pattern === undefined) pathParams.set(operation.path, (pattern = bath(operation.path)));
        params = pattern.params(router.normalizePath(normalized.path)) ?? {};
      }
      const byName = parametersOf(operation);
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
