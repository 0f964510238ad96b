import * as cookie from 'cookie';
import { bath } from 'bath-es5';
import type { OpenAPIRouter, Operation, ParsedRequest, Request, OpenAPIBackend, ValidationResult } from 'openapi-backend';
import type { ErrorObject } from 'ajv';

// openapi-backend's request parsing and validation with what never changes once the contract is loaded worked out
// once per operation (the contract index keeps it), compared with the library's own in test/unit/request-parser.test.ts
// and test/unit/request-validator.test.ts.

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
 * openapi-backend's `parseRequest` for requests whose query is an object (as the operation server always passes it), with
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

type Validator = ((parameters: unknown) => boolean) & { errors?: ErrorObject[] | null };
type Parameter = { $ref?: string; name?: string; in?: string; schema?: { type?: unknown }; content?: Record<string, unknown> };

/** What validateRequest needs of an operation, worked out once (the contract index keeps it) instead of per request. */
export interface OperationFacts {
  /** Query parameters whose schema is an array (a single value is validated as a one-element array). */
  arrayQuery: ReadonlySet<string>;
  /** Query parameters declared with `content: application/json` (malformed JSON is reported). */
  jsonQuery: readonly string[];
  /** The request body's only media type is application/json (a body that does not parse is reported). */
  jsonOnlyBody: boolean;
}

/** The validation facts of `operation`. */
export function operationFactsOf(operation: Operation): OperationFacts {
  const parameters = (operation.parameters ?? []) as Parameter[];
  const arrayQuery = new Set<string>();
  const firstQuery = new Set<string>();
  for (const parameter of parameters) {
    // lodash's _.find(parameters, { name, in: 'query' }): the first query parameter of that name
    if (parameter.in !== 'query' || typeof parameter.name !== 'string' || firstQuery.has(parameter.name)) continue;
    firstQuery.add(parameter.name);
    if (parameter.schema?.type === 'array') arrayQuery.add(parameter.name);
  }
  const jsonQuery = parameters.filter((p) => !('$ref' in p) && p.in === 'query' && p.content?.['application/json'] !== undefined).map((p) => p.name as string);
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  const formats = Object.keys(content);
  return { arrayQuery, jsonQuery, jsonOnlyBody: formats.length === 1 && formats[0] === 'application/json' };
}

/** A request checked against its operation: the library's verdict, and the parameters and body it was made on. */
export interface CheckedRequest {
  /** What openapi-backend's `validateRequest` answers (errors; the request with coerced parameters). */
  readonly result: ValidationResult;
  /** Path parameters, coerced when the request is valid. */
  readonly path: Record<string, unknown>;
  /** Query parameters, coerced when the request is valid. */
  readonly query: Record<string, unknown>;
  /** The parsed JSON body. */
  readonly body: unknown;
}

/**
 * openapi-backend's `validateRequest` with the per-request lodash work done once per operation (`factsOf`, kept by
 * the contract index): which query parameters are arrays, which carry JSON, the body's media types. The same result for every request (compared
 * with the library in test/unit/request-validator.test.ts), the same validators, the same coercion. Finding
 * these again through lodash (_.find, _.omitBy) made ~4% of a small request's allocations. The request is parsed
 * once: the coerced parameters it answers are the handler's input.
 */
export function compiledValidateRequest(api: OpenAPIBackend, factsOf: (operation: Operation) => OperationFacts = operationFactsOf): (req: Request, operation: Operation) => CheckedRequest {
  const validator = api.validator;
  const router = api.router;
  return (req, operation) => {
    const result: ValidationResult = { valid: true, coerced: { ...req }, errors: [] };
    const errors = result.errors as ErrorObject[];
    const { arrayQuery, jsonQuery, jsonOnlyBody } = factsOf(operation);
    const validators = (validator.getRequestValidatorsForOperation(operation.operationId as string) ?? []) as Validator[];
    const { params, query, headers, cookies, requestBody } = router.parseRequest(req, operation);
    if (query) {
      for (const name of Object.keys(query)) {
        if (typeof query[name] === 'string' && arrayQuery.has(name)) query[name] = [query[name] as string];
      }
    }
    // _.omitBy(…, _.isNil): members that are null or undefined are left out
    const parameters: Record<string, unknown> = {};
    if (params != null) parameters.path = params;
    if (query != null) parameters.query = query;
    if (headers != null) parameters.header = headers;
    if (cookies != null) parameters.cookie = cookies;
    if (typeof req.body !== 'object' && req.body !== undefined && jsonOnlyBody) {
      try {
        JSON.parse(`${String(req.body)}`);
      } catch (err) {
        if (err instanceof Error) errors.push({ keyword: 'parse', instancePath: '', schemaPath: '#/requestBody', params: [], message: err.message } as unknown as ErrorObject);
      }
    }
    if (jsonQuery.length > 0) {
      const rawQuery = router.parseRequestQuery(req);
      for (const name of jsonQuery) {
        const rawValue = rawQuery[name];
        if (typeof rawValue !== 'string') continue;
        try {
          JSON.parse(rawValue);
        } catch (err) {
          if (err instanceof Error) {
            errors.push({ keyword: 'parse', instancePath: `/query/${name}`, schemaPath: `#/parameters/${name}`, params: [], message: err.message } as unknown as ErrorObject);
          }
        }
      }
    }
    const rawContentType = headers['content-type'];
    const contentType = String((Array.isArray(rawContentType) ? rawContentType[0] : rawContentType) || '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (typeof requestBody === 'object' || contentType === 'application/json') parameters.requestBody = requestBody;
    for (const validate of validators) {
      validate(parameters);
      if (validate.errors) {
        errors.push(...validate.errors);
      } else if (validator.coerceTypes) {
        result.coerced.query = parameters.query as Request['query'];
        result.coerced.params = parameters.path as Request['params'];
      }
    }
    if (errors.length === 0) result.errors = null;
    else result.valid = false;
    return { result, path: (parameters.path ?? {}) as Record<string, unknown>, query: (parameters.query ?? {}) as Record<string, unknown>, body: requestBody };
  };
}
