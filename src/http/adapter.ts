import type Koa from 'koa';
import type { Context, OpenAPIBackend, Operation } from 'openapi-backend';
import type http from 'node:http';
import { Readable } from 'node:stream';
import { unverifiedCaller, type Caller } from '../auth/caller.js';
import type { Deps } from '../ports.js';
import { ScopedTenants } from '../tenants/tenants.js';
import { authenticate, authorize, privateToCaller } from './access.js';
import { auditRecordOf, type AuditDetails, type AuditRecord, type NamedTargets } from './audit.js';
import { LargeBodyTurns, readJsonBody } from './body.js';
import type { ContractIndex, IndexedOperation } from './contract-index.js';
import { deprecationHeaders } from './deprecation.js';
import { jsonQueryIssues } from './json-depth.js';
import type { HandlerMap, Input, OperationId, RawBody } from './contract.js';
import { heldTag } from './conditional.js';
import { HttpProblem, invalidRequest } from './errors.js';
import { EncodedJson } from './encoded-json.js';
import { contractViolation } from './problem.js';
import type { ProblemCheck } from './problem-check.js';
import { matchedRequestHandler } from './matched-request.js';
import { asUriReference, pathSegmentIssue } from './path-segments.js';
import { MAX_QUERY_PARAMETERS, queryParts } from './query.js';
import { OPERATION_STATE } from './request-context.js';
import { toIssues } from './validation-issues.js';

// where the comparisons of the library's pipeline with the compiled one (tests, bench) have always taken it from
export { createContractBackend } from './contract-index.js';

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

/** What the adapter knows of a request once it is routed, handed to the registered handlers with `ctx`. */
interface Routed {
  readonly entry: IndexedOperation;
  /** The verified caller (sign-in, an operation with a role); null until then or without. */
  caller: Caller | null;
}

/**
 * The only code that touches `ctx` for operations: matches the route; with sign-in, verifies the bearer token and
 * the role before anything else (401/403; the body is not even read) — the one place a request is authorized;
 * reads the body the contract allows, validates it once (openapi-backend's validators), admits costly work (429),
 * calls the typed handler over the caller's view of the tenants, and writes its result (validated when asked).
 */
export function serveOperations(index: ContractIndex, handlers: HandlerMap, deps: Deps, problems: ProblemCheck): (ctx: Koa.Context) => Promise<void> {
  const api = index.api;
  const verifier = deps.tokens;
  const turns = new LargeBodyTurns();
  for (const operationId of Object.keys(handlers) as OperationId[]) {
    const { rule } = index.operation(operationId);
    api.register(operationId, async (c: Context, ctx: Koa.Context, routed: Routed) => {
      const caller = routed.caller ?? unverifiedCaller(verifier !== null, ctx.ip);
      const input = toInput(c, ctx, caller);
      const record = auditRecord(ctx, routed.entry, caller, () => namedIn([input.path, input.query, input.body]));
      if (rule.cost !== null) ctx.res.once('close', await deps.limits.admit(rule.cost, caller));
      let requestDeps = deps;
      if (rule.role !== null) {
        // Every tenant lookup of the handler goes through the caller's scope; outside it, a tenant does not exist.
        const tenants = new ScopedTenants(deps.tenants, caller.scope);
        record.tenants = tenants;
        requestDeps = scopedDeps(deps, tenants, caller.mode === 'oidc' ? async () => ({ name: caller.name, email: caller.email }) : deps.identity);
      }
      const handler = handlers[operationId] as (input: Input<OperationId>, deps: Deps) => Promise<AnyResult>;
      const result = await handler(input, requestDeps);
      if (result.touched !== undefined) record.created = result.touched;
      if (result.audit !== undefined) record.details = result.audit;
      send(ctx, api, problems, routed.entry, result, deps.config.responseValidation);
    });
  }
  api.register('validationFail', (c: Context, ctx: Koa.Context, routed: Routed) => {
    auditRecord(ctx, routed.entry, routed.caller, () => namedIn([c.request.params, c.request.query, c.request.requestBody]));
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

  const matched = matchedRequestHandler(api, (operation) => index.operation(operation.operationId as string).validate);
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
    const entry = index.match(request);
    if (entry === undefined) {
      // 404 and 405 as openapi-backend decides them
      await api.handleRequest(request as Parameters<OpenAPIBackend['handleRequest']>[0], ctx);
      return;
    }
    ctx.state[OPERATION_STATE] = entry.operationId;
    const routed: Routed = { entry, caller: null };
    const serve = async () => {
      // after the host and the token were judged: a query too large to validate (every step below walks it)
      const parts = queryParts(ctx.querystring);
      if (parts > MAX_QUERY_PARAMETERS) throw invalidRequest([{ in: 'query', name: '', message: `holds ${parts} parameters; at most ${MAX_QUERY_PARAMETERS}` }]);
      // after the host and the token were judged, before the body is read: a path no parameter can be decoded from
      const pathIssue = pathSegmentIssue(ctx.path, entry.route);
      if (pathIssue !== null) throw invalidRequest([pathIssue]);
      const queryIssues = jsonQueryIssues(entry.validate.jsonQuery, ctx.query);
      if (queryIssues.length > 0) throw invalidRequest(queryIssues);
      if (carriesBody && entry.bodyMediaTypes !== null) request.body = await readJsonBody(ctx, entry.bodyMediaTypes, turns);
      await matched.handle(request, entry.operation, ctx, routed);
    };
    if (verifier === null || entry.rule.role === null) {
      await serve();
      return;
    }
    const record = auditRecord(ctx, entry, null, () => namedByUrl(api, request, entry.operation));
    try {
      routed.caller = await authenticate(ctx.get('authorization'), ctx.ip, verifier);
      record.caller = routed.caller;
      try {
        authorize(routed.caller, entry.rule);
      } catch (err) {
        await nameBodyOfRefusal(ctx, api, request, entry, record, carriesBody, turns);
        throw err;
      }
      await serve();
    } finally {
      privateToCaller(ctx);
    }
  };
}

/**
 * The ports as one request sees them: the tenants in its caller's scope and the caller's identity; every other
 * port is the server's, reached through the prototype rather than copied for each request.
 */
function scopedDeps(deps: Deps, tenants: ScopedTenants, identity: Deps['identity']): Deps {
  const scoped = Object.create(deps) as { -readonly [K in keyof Deps]: Deps[K] };
  scoped.tenants = tenants;
  scoped.identity = identity;
  return scoped;
}

/**
 * The request's audit record (audit.ts writes its line): made by the first step that learns which operation the
 * request is for, then told what each later step learned. `caller` and `named` replace what an earlier step knew,
 * `caller` only once known (a verified token outranks a guess).
 */
function auditRecord(ctx: Koa.Context, entry: IndexedOperation | undefined, caller: Caller | null, named: () => NamedTargets): AuditRecord {
  const record = auditRecordOf(ctx, entry?.operationId ?? null, entry?.rule.audited ?? false);
  record.caller ??= caller;
  record.named = named;
  return record;
}

/**
 * Records the audit of a request refused before its handler ran (421; 403 from another site): the operation it
 * matched, if any, with its rule, the caller as far as known without a token check, and what its path and query
 * name.
 */
export function auditRefusal(index: ContractIndex, signIn: boolean): (ctx: Koa.Context) => AuditRecord {
  return (ctx) => {
    const request = { method: ctx.method, path: ctx.path, headers: ctx.headers as Record<string, string | string[]>, query: ctx.query as Record<string, string | string[]> };
    const entry = index.match(request);
    if (entry !== undefined) ctx.state[OPERATION_STATE] = entry.operationId;
    return auditRecord(ctx, entry, unverifiedCaller(signIn, ctx.ip), () => (entry === undefined ? namedIn([request.query]) : namedByUrl(index.api, request, entry.operation)));
  };
}

/**
 * A caller whose token was verified but whose role falls short (403): its JSON body is read after all (same limits
 * as any body) so that the audit line names the tenant and IDs the body names, as it names those of the path and
 * the query. A body that cannot be read (malformed, too large, another media type) leaves the line at the URL's.
 */
async function nameBodyOfRefusal(ctx: Koa.Context, api: OpenAPIBackend, request: Parameters<OpenAPIBackend['handleRequest']>[0], entry: IndexedOperation, record: AuditRecord, carriesBody: boolean, turns: LargeBodyTurns): Promise<void> {
  if (!carriesBody || entry.bodyMediaTypes === null) return;
  let body: unknown;
  try {
    body = await readJsonBody(ctx, entry.bodyMediaTypes, turns);
  } catch {
    return;
  }
  const parsed = api.router.parseRequest(request, entry.operation);
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

function send(ctx: Koa.Context, api: OpenAPIBackend, problems: ProblemCheck, entry: IndexedOperation, result: AnyResult, validate: boolean): void {
  const { operationId, operation } = entry;
  const declared = entry.responses;
  const response = declared[String(result.status)];
  if (response === undefined) {
    throw contractViolation(ctx, operationId, result.status, [`status ${result.status} is not declared`]);
  }
  const mediaTypes = response.mediaTypes;
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
  const deprecation = entry.deprecation === null ? null : deprecationHeaders(entry.deprecation, { query: ctx.query, headers: ctx.headers });
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
  if (encoded !== undefined && (result.body as EncodedJson).owned) releaseWhenWritten(ctx.res, encoded);
}

/**
 * Gives the memory of an answer's own buffer back as soon as the answer is written, by detaching it. Left to V8,
 * a buffer still in flight at two young-generation collections lives until the next full one, seconds later under
 * load: a search load kept tens of MB of answers allocated, and the C allocator's arena they were in stayed at that
 * high-water mark once idle (docs/decisions/0016-memory.md).
 */
function releaseWhenWritten(res: http.ServerResponse, bytes: Buffer): void {
  const buffer = bytes.buffer;
  // never a slice of a shared pool (Buffer.from of a short string): only a buffer the bytes fill
  if (!(buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength) return;
  // once written (an answer whose connection broke off is left to the collector)
  res.once('finish', () => {
    if (!buffer.detached) buffer.transfer(0);
  });
}

function allowedMethods(api: OpenAPIBackend, path: string): string {
  const allowed = METHODS.filter((method) => api.router.matchOperation({ method, path, headers: {} }) !== undefined);
  return allowed.map((m) => m.toUpperCase()).join(', ');
}
