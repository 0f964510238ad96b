import type { OpenAPIBackend, Operation, Request, ValidationResult } from 'openapi-backend';
import type { ErrorObject } from 'ajv';

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
