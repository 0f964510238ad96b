import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { performance } from 'node:perf_hooks';
import type { Caller } from '../auth/caller.js';
import type { Logger } from '../logger.js';
import type { AuditDetails } from '../operations/contract.js';
import type { TrustProxy } from '../config.js';
import type { ContractIndex, IndexedOperation } from './contract-index.js';
import { forwardedClientOf } from './forwarded.js';
import type { OpenAPIBackend } from 'openapi-backend';
import { pathSegmentIssue } from './request-target.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The tenants an operation was served from in its caller's scope, and one it named outside that scope. */
export interface TenantsUsed {
  /** Composite IDs of the tenants the request resolved, in order. */
  readonly resolved: readonly string[];
  /** The composite ID of a tenant the request named that exists but is outside the scope (answered 404). */
  readonly outsideScope: string | null;
}

/**
 * What the server learns of one request as it passes through, handed from step to step (src/http/request-pass.ts)
 * and read once at the end for the log line, the duration metric, the audit line and the span. Made by
 * `RequestRecords.begin` with what the request itself says; the operation's steps add who asked, what was
 * named, the tenants used and what a write created.
 */
export class RequestRecord {
  readonly id = randomUUID();
  readonly started = performance.now();
  /** Who asks, once known: the verified token's caller, or the caller a server without sign-in assumes. */
  caller: Caller | null = null;
  /** The tenants the operation resolved in its caller's scope; null when it ran without a scope. */
  tenants: TenantsUsed | null = null;
  /** IDs a write created that the request could not name (a new view's `view_id`). */
  createdIds: Readonly<Record<string, string>> = {};
  /** What an audited read gave away (rows exported, the model a finding went to). */
  auditDetails: AuditDetails | null = null;
  /** Answered with a problem raised because the client had gone (it stopped waiting): logged at info. */
  abandoned = false;
  #named: (() => NamedTargets) | null = null;
  #log: Logger | undefined;

  constructor(
    private readonly root: Logger,
    /** The operation the method and path name, matched once as the request begins; null when none does. */
    readonly operation: IndexedOperation | null,
    /** The client's address: the connection's peer, or behind a trusted proxy the client it vouched for. */
    readonly address: string,
    /** The host a trusted proxy forwarded (`X-Forwarded-Host`), or null. */
    readonly forwardedHost: string | null,
    /** The client's own `X-Request-Id`, when well-formed: logged beside the server's id, never used as it. */
    readonly clientRequestId: string | null,
    /** What the request names by its URL alone (path parameters and query), worked out only when asked. */
    private readonly namedByUrl: () => NamedTargets,
  ) {}

  /** What the request named: its validated input once read, else what its URL names. */
  get named(): NamedTargets {
    return (this.#named ?? this.namedByUrl)();
  }

  /** Records what the request names, worked out only when a line needs it. */
  names(named: () => NamedTargets): void {
    this.#named = named;
  }

  /** A logger carrying the request id, made only when something logs besides the request line. */
  get log(): Logger {
    this.#log ??= this.root.child({ reqId: this.id });
    return this.#log;
  }
}

/**
 * The first step of every request: its record, with the operation its method and path match (the only time a
 * request is routed), its client address, and the `X-Request-Id` and `X-Build-Label` response headers. A client's
 * `X-Request-Id` is never the id (a client could forge or reuse it).
 */
export function requestRecords(index: ContractIndex, log: Logger, buildLabel: string, trustProxy: TrustProxy | null): (ctx: Koa.Context) => RequestRecord {
  const client = trustProxy === null ? null : forwardedClientOf(trustProxy);
  return (ctx) => {
    const operation = index.match(ctx.method, ctx.path);
    const forwarded = client === null ? null : client(ctx.req);
    const offered = ctx.get('x-request-id');
    const record = new RequestRecord(
      log,
      operation,
      forwarded?.address ?? ctx.ip,
      forwarded?.host ?? null,
      offered !== '' && CLIENT_REQUEST_ID.test(offered) ? offered : null,
      () => (operation === null ? namedIn([ctx.query]) : namedByUrl(index.api, operation, ctx.path, ctx.query)),
    );
    // straight to Node: Koa's ctx.set builds four arrays per call to allow for arrays and objects
    ctx.res.setHeader('X-Request-Id', record.id);
    ctx.res.setHeader('X-Build-Label', buildLabel);
    return record;
  };
}

/** What a request named: the tenant as given (path, query or body member `tenant`) and its IDs. */
export interface NamedTargets {
  tenant: string | null;
  ids: Record<string, string>;
}

/**
 * What the sources (path, query, body) name: the tenant (`tenant`), the IDs (members ending in `_id`, also one
 * level down, as `finding.probe_id`), and a refresh's `scope` and `pack`. The first source naming a member wins.
 */
export function namedIn(sources: readonly unknown[]): NamedTargets {
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

/** What a request of `operation` names in its path parameters and query (a path that cannot be decoded: its query). */
export function namedByUrl(api: OpenAPIBackend, operation: IndexedOperation, path: string, query: Readonly<Record<string, unknown>>): NamedTargets {
  if (pathSegmentIssue(path, operation.route) !== null) return namedIn([query]);
  const parsed = api.router.parseRequest({ method: operation.operation.method, path, query: query as Record<string, string>, headers: {} }, operation.operation);
  return namedIn([parsed.params, parsed.query]);
}
