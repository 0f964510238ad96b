import type Koa from 'koa';
import { OpenAPIBackend, type Context, type Document, type Operation } from 'openapi-backend';
import type { ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { Readable } from 'node:stream';
import { localCaller, type Caller } from '../auth/caller.js';
import type { Deps } from '../ports.js';
import { ScopedTenants } from '../tenants/tenants.js';
import { anonymousCaller, authenticate, authorize, privateToCaller, unauthorized, type AccessRule } from './access.js';
import { auditRecordOf, type AuditDetails, type AuditRecord, type NamedTargets } from './audit.js';
import { readJsonBody } from './body.js';
import { jsonQueryIssues } from './json-depth.js';
import { deprecationHeaders, deprecationsOf, type Deprecations } from './deprecation.js';
import type { HandlerMap, Input, OperationId, RawBody } from './contract.js';
import { heldTag } from './conditional.js';
import { HttpProblem, invalidRequest, type ValidationIssue } from './errors.js';
import { EncodedJson } from './encoded-json.js';
import { contractViolation } from './problem.js';
import type { ProblemCheck } from './problem-check.js';
import { matchedRequestHandler } from './matched-request.js';
import { asUriReference, pathSegmentIssue } from './path-segments.js';
import { OPERATION_STATE } from './request-context.js';
import { compiledParseRequest } from './request-parser.js';
import { compiledMatchOperation } from './route-matcher.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const JSON_TYPES = new Set(['application/json', 'application/problem+json']);

interface AnyResult {
  status: number;
  contentType?: string;
  body?: unknown;
  headers?: Record<string, string>;
  touched?: Record<string, string>;
  audit?: AuditDetails;
}

/**
 * Builds the openapi-backend instance: strict routing, coerced parameters, formats, discriminators, with the
 * library's routing and parsing replaced by compiled equivalents (`compiled: false` keeps the library's own, for
 * the tests that compare the two).
 */
export async function createContractBackend(definition: Document, compiled = true): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: structuredClone(definition),
    strict: true,
    // quick: skip re-validating the document at every start (redocly lint does that in CI) and compile each
    // operation's validators on its first request instead of all up front: start-up 2 s -> well under 1 s.
    quick: true,
    validate: true,
    coerceTypes: true,
    ajvOpts: { strict: false, allErrors: false },
    customizeAjv: (ajv) => {
      addFormats.default(ajv, { mode: 'full' });
      return ajv;
    },
  });
  await api.init();
  if (!compiled) return api;
  // openapi-backend redoes per request what never changes once the contract is loaded (docs/dependencies.md,
  // "openapi-backend functions the server replaces"): it flattens the document into its operations on every
  // routing call, compiles a RegExp per operation to route a templated path, and parses every request three
  // times, compiling each path's parameter pattern again every time.
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  api.router.matchOperation = compiledMatchOperation(api.router, operations) as OpenAPIBackend['router']['matchOperation'];
  api.router.parseRequest = compiledParseRequest(api.router) as OpenAPIBackend['router']['parseRequest'];
  return api;
}

/**
 * The only code that touches `ctx` for operations: matches the route; with sign-in, verifies the bearer token and
 * the role before anything else (401/403; the body is not even read); reads the body the contract allows, lets
 * openapi-backend validate, admits costly work (429), calls the typed handler over the caller's view of the
 * tenants, and writes its result (validated when asked).
 */
export function contractMiddleware(api: OpenAPIBackend, rules: ReadonlyMap<string, AccessRule>, handlers: HandlerMap, deps: Deps, problems: ProblemCheck): Koa.Middleware {
  const verifier = deps.tokens;
  const deprecations = deprecationsOf(deps.contract.document);
  const ruleOf = (operationId: string): AccessRule => {
    const rule = rules.get(operationId);
    if (rule === undefined) throw new Error(`no access rule for ${operationId}`);
    return rule;
  };
  for (const operationId of Object.keys(handlers) as OperationId[]) {
    const rule = ruleOf(operationId);
    api.register(operationId, async (c: Context, ctx: Koa.Context) => {
      ctx.state[OPERATION_STATE] = operationId;
      const record = auditRecordOf(ctx, operationId, rule.audited);
      const caller = (ctx.state.caller as Caller | undefined) ?? (verifier === null ? localCaller(ctx.ip) : anonymousCaller(ctx.ip));
      record.caller ??= caller;
      const input = toInput(c, ctx, caller);
      record.named = () => namedIn([input.path, input.query, input.body]);
      if (rule.cost !== null) ctx.res.once('close', await deps.limits.admit(rule.cost, caller));
      let requestDeps = deps;
      if (rule.role !== null) {
        // Every tenant lookup of the handler goes through the caller's scope; outside it, a tenant does not exist.
        const tenants = new ScopedTenants(deps.tenants, caller.scope);
        record.tenants = tenants;
        requestDeps = { ...deps, tenants, identity: caller.mode === 'oidc' ? async () => ({ name: caller.name, email: caller.email }) : deps.identity };
      }
      const handler = handlers[operationId] as (input: Input<OperationId>, deps: Deps) => Promise<AnyResult>;
      const result = await handler(input, requestDeps);
      if (result.touched !== undefined) record.created = result.touched;
      if (result.audit !== undefined) record.details = result.audit;
      send(ctx, api, problems, c.operation, result, deps.config.responseValidation, deprecations);
    });
  }
  // The contract's `security` is judged once more before the handler (it fails closed): the token was verified
  // before the body was read, so this only confirms it, and sign-in off satisfies the scheme.
  const tokenConfirmed = (ctx: Koa.Context): boolean => verifier === null || ctx.state.caller !== undefined;
  if (api.definition.components?.securitySchemes?.bearerAuth !== undefined) {
    api.registerSecurityHandler('bearerAuth', (_c: Context, ctx: Koa.Context) => tokenConfirmed(ctx));
  }
  api.register('unauthorizedHandler', () => {
    throw unauthorized(null);
  });
  api.register('validationFail', (c: Context, ctx: Koa.Context) => {
    ctx.state[OPERATION_STATE] = c.operation.operationId;
    const rule = ruleOf(c.operation.operationId as string);
    auditRecordOf(ctx, rule.operationId, rule.audited).named = () => namedIn([c.request.params, c.request.query, c.request.requestBody]);
    throw invalidRequest(toIssues(c.validation.errors ?? []));
  });
  api.register('notFound', (c: Context) => {
    throw new HttpProblem('route-not-found', `no route for ${c.request.method.toUpperCase()} ${c.request.path}`);
  });
  api.register('methodNotAllowed', (c: Context) => {
    const allow = allowedMethods(api, c.request.path);
    throw new HttpProblem('method-not-allowed', `${c.request.method.toUpperCase()} is not allowed on ${c.request.path}; allowed: ${allow}`, {
      headers: { Allow: allow },
    });
  });

  const matched = matchedRequestHandler(api);
  matched.check();

  return async (ctx) => {
    const request = {
      method: ctx.method,
      path: ctx.path,
      headers: ctx.headers as Record<string, string | string[]>,
      query: ctx.query as Record<string, string | string[]>,
      body: undefined as unknown,
    };
    // The operation is known before the body is read or the token checked, so that a 401, 413 or 415 is
    // measured under it too.
    const carriesBody = (ctx.request.length ?? 0) > 0 || ctx.get('transfer-encoding') !== '';
    const operation = api.router.matchOperation(request);
    if (operation !== undefined) ctx.state[OPERATION_STATE] = operation.operationId;
    const serve = async () => {
      if (operation === undefined) {
        // 404 and 405 as openapi-backend decides them
        await api.handleRequest(request as Parameters<OpenAPIBackend['handleRequest']>[0], ctx);
        return;
      }
      // after the host and the token were judged, before the body is read: a path no parameter can be decoded from
      const pathIssue = pathSegmentIssue(ctx.path, operation.path);
      if (pathIssue !== null) throw invalidRequest([pathIssue]);
      const queryIssues = jsonQueryIssues(operation.parameters ?? [], ctx.query);
      if (queryIssues.length > 0) throw invalidRequest(queryIssues);
      const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
      if (carriesBody && content !== undefined) request.body = await readJsonBody(ctx, Object.keys(content));
      await matched.handle(request, operation, ctx);
    };
    const rule = verifier === null || operation === undefined ? undefined : ruleOf(operation.operationId as string);
    if (verifier === null || rule === undefined || rule.role === null) {
      await serve();
      return;
    }
    const record = auditRecordOf(ctx, rule.operationId, rule.audited);
    record.named = () => namedByUrl(api, request, operation as Operation);
    try {
      const caller = await authenticate(ctx.get('authorization'), ctx.ip, verifier);
      ctx.state.caller = caller;
      record.caller = caller;
      try {
        authorize(caller, rule);
      } catch (err) {
        await nameBodyOfRefusal(ctx, api, request, operation as Operation, record, carriesBody);
        throw err;
      }
      await serve();
    } finally {
      privateToCaller(ctx);
    }
  };
}

/**
 * Records the audit of a request refused before its handler ran (421; 403 from another site): the operation it
 * matched, if any, with its rule, the caller as far as known without a token check, and what its path and query
 * name.
 */
export function auditRefusal(api: OpenAPIBackend, rules: ReadonlyMap<string, AccessRule>, signIn: boolean): (ctx: Koa.Context) => AuditRecord {
  return (ctx) => {
    const request = { method: ctx.method, path: ctx.path, headers: ctx.headers as Record<string, string | string[]>, query: ctx.query as Record<string, string | string[]> };
    const operation = api.router.matchOperation(request);
    const rule = operation === undefined ? undefined : rules.get(operation.operationId as string);
    if (rule !== undefined) ctx.state[OPERATION_STATE] = rule.operationId;
    const record = auditRecordOf(ctx, rule?.operationId ?? null, rule?.audited ?? false);
    record.caller = signIn ? anonymousCaller(ctx.ip) : localCaller(ctx.ip);
    record.named = () => (operation === undefined ? namedIn([request.query]) : namedByUrl(api, request, operation));
    return record;
  };
}

/**
 * A caller whose token was verified but whose role falls short (403): its JSON body is read after all (same limits
 * as any body) so that the audit line names the tenant and IDs the body names, as it names those of the path and
 * the query. A body that cannot be read (malformed, too large, another media type) leaves the line at the URL's.
 */
async function nameBodyOfRefusal(ctx: Koa.Context, api: OpenAPIBackend, request: Parameters<OpenAPIBackend['handleRequest']>[0], operation: Operation, record: AuditRecord, carriesBody: boolean): Promise<void> {
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
  if (!carriesBody || content === undefined) return;
  let body: unknown;
  try {
    body = await readJsonBody(ctx, Object.keys(content));
  } catch {
    return;
  }
  const parsed = api.router.parseRequest(request, operation);
  record.named = () => namedIn([parsed.params, parsed.query, body]);
}

/** What a request names in its path and query (its body is not read): for a request refused before validation. */
function namedByUrl(api: OpenAPIBackend, request: Parameters<OpenAPIBackend['handleRequest']>[0], operation: Operation): NamedTargets {
  // a path that cannot be decoded names nothing: its query still may
  if (pathSegmentIssue(request.path, operation.path) !== null) return namedIn([request.query]);
  const parsed = api.router.parseRequest(request, operation);
  return namedIn([parsed.params, parsed.query]);
}

/**
 * What the sources (path, query, body) name: the tenant (`tenant`), the IDs (members ending in `_id`, also one
 * level down, as `finding.probe_id`), and a refresh's `scope` and `pack`. The first source naming a member wins.
 */
function namedIn(sources: readonly unknown[]): NamedTargets {
  const named: NamedTargets = { tenant: null, ids: {} };
  const collect = (source: unknown, prefix: string): void => {
    if (source === null || typeof source !== 'object' || Array.isArray(source)) return;
    for (const [name, value] of Object.entries(source)) {
      if (prefix === '' && typeof value === 'object') collect(value, `${name}.`);
      if (typeof value !== 'string') continue;
      if (prefix === '' && name === 'tenant') named.tenant ??= value;
      else if (name.endsWith('_id') || (prefix === '' && (name === 'pack' || name === 'scope'))) named.ids[prefix + name] ??= value;
    }
  };
  for (const source of sources) collect(source, '');
  return named;
}

function toInput(c: Context, ctx: Koa.Context, caller: Caller): Input<OperationId> {
  return {
    path: (c.request.params ?? {}) as never,
    query: (c.request.query ?? {}) as never,
    body: c.request.requestBody as never,
    headers: ctx.headers as Record<string, string | undefined>,
    requestId: String(ctx.state.requestId),
    caller,
  };
}

function send(ctx: Koa.Context, api: OpenAPIBackend, problems: ProblemCheck, operation: Operation, result: AnyResult, validate: boolean, deprecations: Deprecations): void {
  const operationId = operation.operationId as string;
  const declared = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  const response = declared[String(result.status)];
  if (response === undefined) {
    throw contractViolation(ctx, operationId, result.status, [`status ${result.status} is not declared`]);
  }
  const mediaTypes = Object.keys(response.content ?? {});
  const contentType = result.contentType ?? mediaTypes[0];
  if (result.body !== undefined && (contentType === undefined || !mediaTypes.includes(contentType))) {
    throw contractViolation(ctx, operationId, result.status, [`media type ${String(contentType)} is not declared`]);
  }
  if (contentType === 'application/problem+json') {
    // typed problem results get the same request fields, and the same check, as thrown ones
    result.body = { ...(result.body as object), instance: asUriReference(ctx.path), requestId: String(ctx.state.requestId) };
    const reasons = problems.reasons(operationId, result.status, result.body);
    if (reasons.length > 0) throw contractViolation(ctx, operationId, result.status, reasons);
  }
  const isJson = contentType !== undefined && JSON_TYPES.has(contentType);
  // an EncodedJson body was checked against its schema by the code that made it (see EncodedJson)
  const encoded = isJson && result.body instanceof EncodedJson ? result.body.bytes : undefined;
  if (validate && isJson && encoded === undefined) {
    const outcome = api.validateResponse(result.body, operation, result.status);
    if (outcome.errors) {
      throw contractViolation(ctx, operationId, result.status, outcome.errors.map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`));
    }
  }
  if (result.headers !== undefined) for (const name of Object.keys(result.headers)) ctx.res.setHeader(name, result.headers[name]!);
  const deprecation = deprecationHeaders(deprecations, operation.operationId as string, { query: ctx.query, headers: ctx.headers });
  if (deprecation !== null) for (const name of Object.keys(deprecation)) ctx.res.setHeader(name, deprecation[name]!);

  const etag = result.headers?.ETag;
  const held = result.status === 200 && etag !== undefined && declared['304'] !== undefined ? heldTag(ctx.get('if-none-match'), etag) : null;
  if (held !== null) {
    // the tag as the client holds it (a compressed representation's, maybe: src/http/conditional.ts)
    ctx.res.setHeader('ETag', held);
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  ctx.status = result.status;
  if (result.body === undefined) {
    ctx.body = null;
    return;
  }
  // Exactly the declared media type: JSON is UTF-8 by definition (RFC 8259), so no charset is appended. Set
  // before the body, so that Koa does not work one out (and look up its charset) only to have it replaced.
  ctx.res.setHeader('Content-Type', contentType as string);
  ctx.body = isJson ? (encoded ?? JSON.stringify(result.body)) : (result.body as RawBody | Readable);
}

function allowedMethods(api: OpenAPIBackend, path: string): string {
  const allowed = METHODS.filter((method) => api.router.matchOperation({ method, path, headers: {} }) !== undefined);
  return allowed.map((m) => m.toUpperCase()).join(', ');
}

/** ajv errors of openapi-backend's request schema (`/path/x`, `/query/y`, `/requestBody/a/b`) as `errors[]`. */
export function toIssues(errors: ErrorObject[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const segments = error.instancePath.split('/').filter((s) => s !== '').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const root = segments.shift() ?? '';
    const where: ValidationIssue['in'] = root === 'path' ? 'path' : root === 'query' ? 'query' : root === 'header' ? 'header' : 'body';
    const params = error.params as { missingProperty?: string; additionalProperty?: string };
    if (params.missingProperty !== undefined) segments.push(params.missingProperty);
    if (params.additionalProperty !== undefined) segments.push(params.additionalProperty);
    const name = segments.join('.');
    const message =
      error.keyword === 'required'
        ? 'is required'
        : error.keyword === 'additionalProperties'
          ? 'is not allowed here'
          : error.keyword === 'parse'
            ? `malformed JSON: ${error.message ?? ''}`
            : (error.message ?? 'is invalid');
    const key = `${where}|${name}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push({ in: where, name, message });
    }
  }
  return issues;
}
