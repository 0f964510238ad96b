import type Koa from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';
import { unverifiedCaller, type Caller } from '../auth/caller.js';
import { invalidRequest, Problem } from '../common/problems.js';
import { toIssues } from '../common/validation-issues.js';
import type { HandlerMap, Input, OperationId } from '../operations/contract.js';
import type { Deps } from '../ports/deps.js';
import { ScopedTenants } from '../tenants/tenants.js';
import { withFetchAdmission } from '../tenants/fetch-admission.js';
import { authenticate, authorize, privateToCaller } from './access.js';
import { answerResult, type AnyResult } from './answer.js';
import { LargeBodyQueue, readJsonBody } from './body.js';
import type { ContractIndex, IndexedOperation } from './contract-index.js';
import { jsonQueryIssues } from './body.js';
import { namedIn, type RequestRecord } from './request-record.js';
import { clientGoneSignal } from './problem-answer.js';
import { pathSegmentIssue } from './request-target.js';
import { MAX_QUERY_PARAMETERS, queryParts } from './request-target.js';
import { compiledValidateRequest } from './request-validation.js';

type Request = Parameters<OpenAPIBackend['router']['parseRequest']>[0];
type AnyHandler = (input: Input<OperationId>, deps: Deps) => Promise<AnyResult>;

/**
 * Serves the operation a request matched (the only code that touches `ctx` for operations): with sign-in, verifies
 * the bearer token and the role before anything else (401/403; the body is not even read) — the one place a
 * request is authorized; reads the body the contract allows, validates the request once, admits costly work (429),
 * calls the typed handler over the caller's view of the tenants, and writes its result (answer.ts). A path no
 * operation has is a 404, a method its path does not take a 405.
 */
export function operationServer(index: ContractIndex, handlers: HandlerMap, deps: Deps): (ctx: Koa.Context, record: RequestRecord) => Promise<void> {
  const verifier = deps.tokens;
  const bodies = new LargeBodyQueue();
  const validate = compiledValidateRequest(index.api, (operation) => index.operation(operation.operationId as string).validate);

  /** Everything after the token: bounds, body, validation, limits, the handler and its answer. */
  async function serveCaller(ctx: Koa.Context, record: RequestRecord, entry: IndexedOperation, caller: Caller): Promise<void> {
    const parts = queryParts(ctx.querystring);
    if (parts > MAX_QUERY_PARAMETERS) throw invalidRequest([{ in: 'query', name: '', message: `holds ${parts} parameters; at most ${MAX_QUERY_PARAMETERS}` }]);
    const pathIssue = pathSegmentIssue(ctx.path, entry.route);
    if (pathIssue !== null) throw invalidRequest([pathIssue]);
    if (entry.validate.jsonQuery.length > 0) {
      const queryIssues = jsonQueryIssues(entry.validate.jsonQuery, ctx.query);
      if (queryIssues.length > 0) throw invalidRequest(queryIssues);
    }
    const request = requestOf(ctx);
    if (entry.bodyMediaTypes !== null && carriesBody(ctx)) request.body = await readJsonBody(ctx, entry.bodyMediaTypes, bodies);
    const checked = validate(request, entry.operation);
    record.names(() => namedIn([checked.path, checked.query, checked.body]));
    if (checked.result.errors) throw invalidRequest(toIssues(checked.result.errors));
    const { rule } = entry;
    if (rule.cost !== null) ctx.res.once('close', await deps.limits.admit(rule.cost, caller));
    let requestDeps = deps;
    if (rule.role !== null) {
      // Every tenant lookup of the handler goes through the caller's scope; outside it, a tenant does not exist.
      const tenants = new ScopedTenants(deps.tenants, caller.scope);
      record.tenants = tenants;
      requestDeps = scopedDeps(deps, tenants, caller.mode === 'oidc' ? async () => ({ name: caller.name, email: caller.email }) : deps.identity);
    }
    const input = { path: checked.path, query: checked.query, body: checked.body, headers: ctx.headers, requestId: record.id, caller } as Input<OperationId>;
    // every tenant fetch the handler starts counts against the caller's limit
    const admitFetch = async (): Promise<void> => {
      await deps.limits.admit('tenant-fetch', caller);
    };
    // a request whose client has gone starts no fetch and stops waiting for one (its answer would reach no one)
    const gone = clientGoneSignal(ctx.res);
    let result: AnyResult;
    try {
      result = await withFetchAdmission(admitFetch, () => (handlers[entry.operationId as OperationId] as AnyHandler)(input, requestDeps), gone.signal);
    } finally {
      gone.dispose();
    }
    if (result.createdIds !== undefined) record.createdIds = result.createdIds;
    if (result.auditDetails !== undefined) record.auditDetails = result.auditDetails;
    answerResult(ctx, record, index.api, entry, result, deps.config.responseValidation);
  }

  return async (ctx, record) => {
    const entry = record.operation;
    if (entry === null) throw notRouted(index, ctx);
    if (verifier === null || entry.rule.role === null) {
      record.caller ??= unverifiedCaller(verifier !== null, record.address);
      await serveCaller(ctx, record, entry, record.caller);
      return;
    }
    try {
      const caller = await authenticate(ctx.get('authorization'), record.address, verifier);
      record.caller = caller;
      try {
        authorize(caller, entry.rule);
      } catch (err) {
        await nameBodyOfRefusal(ctx, record, index.api, entry, bodies);
        throw err;
      }
      await serveCaller(ctx, record, entry, caller);
    } finally {
      privateToCaller(ctx);
    }
  };
}

/** 404 for a path no operation has, 405 with `Allow` for a method its path does not take. */
function notRouted(index: ContractIndex, ctx: Koa.Context): Problem {
  const allowed = index.allowedMethods(ctx.path);
  if (allowed.length === 0) return new Problem('route-not-found', `no route for ${ctx.method} ${ctx.path}`);
  return new Problem('method-not-allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allowed.join(', ')}`, { allowedMethods: allowed });
}

/** The request as the contract's router and validators read it. */
function requestOf(ctx: Koa.Context): Request & { body: unknown } {
  return { method: ctx.method, path: ctx.path, headers: ctx.headers as Record<string, string | string[]>, query: ctx.query as Record<string, string | string[]>, body: undefined };
}

/** Whether the request says it carries a body (a length above zero, or chunks). */
function carriesBody(ctx: Koa.Context): boolean {
  return (ctx.request.length ?? 0) > 0 || ctx.get('transfer-encoding') !== '';
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
 * A caller whose token was verified but whose role falls short (403): its JSON body is read after all (same limits
 * as any body) so that the audit line names the tenant and IDs the body names, as it names those of the path and
 * the query. A body that cannot be read (malformed, too large, another media type) leaves the line at the URL's.
 */
async function nameBodyOfRefusal(ctx: Koa.Context, record: RequestRecord, api: OpenAPIBackend, entry: IndexedOperation, bodies: LargeBodyQueue): Promise<void> {
  if (entry.bodyMediaTypes === null || !carriesBody(ctx)) return;
  let body: unknown;
  try {
    body = await readJsonBody(ctx, entry.bodyMediaTypes, bodies);
  } catch {
    return;
  }
  const parsed = api.router.parseRequest(requestOf(ctx), entry.operation);
  record.names(() => namedIn([parsed.params, parsed.query, body]));
}
