import type Koa from 'koa';
import { isLoopbackAddress } from '../config.js';
import { Problem, invalidRequest } from '../common/problems.js';
import type { RequestRecord } from './request-record.js';

// The guards of the request's pass (request-pass.ts), asked in this order before the operation is served: the host
// the request names, CORS (which answers a preflight itself), and, without sign-in, writes from another site.

/**
 * Whether a request's `Host` header names this server: a loopback name or address (`localhost`, `127.0.0.1`,
 * `[::1]`, any port) always, and the ALLOWED_HOSTS patterns (`desk.example.org`, `*.example.org` for its
 * subdomains, `*` for any). null when every host is accepted (sign-in on and ALLOWED_HOSTS unset).
 */
export function hostCheck(allowedHosts: readonly string[] | null, signIn: boolean): ((hostHeader: string) => boolean) | null {
  if (allowedHosts === null && signIn) return null;
  const patterns = allowedHosts ?? [];
  if (patterns.includes('*')) return null;
  const exact = new Set(patterns.filter((p) => !p.startsWith('*.')));
  const suffixes = patterns.filter((p) => p.startsWith('*.')).map((p) => p.slice(1));
  const accepts = (hostHeader: string): boolean => {
    const name = hostName(hostHeader);
    if (name === null) return false;
    return isLoopbackAddress(name) || exact.has(name) || suffixes.some((suffix) => name.endsWith(suffix));
  };
  // Clients send the same few Host values again and again: each is judged once. Bounded, since a client chooses
  // the header: past the bound the verdicts start over.
  const judged = new Map<string, boolean>();
  return (hostHeader) => {
    let verdict = judged.get(hostHeader);
    if (verdict === undefined) {
      verdict = accepts(hostHeader);
      if (judged.size >= 256) judged.clear();
      judged.set(hostHeader, verdict);
    }
    return verdict;
  };
}

/** The host of a `Host` header value, lower-cased, without port and trailing dot; null when malformed. */
export function hostName(header: string): string | null {
  const value = header.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(value);
  if (match === null) return null;
  return match[1]!.replace(/\.$/, '');
}

/** The authority of an absolute-form request target (`GET http://desk.example.org/health`), else null. */
function targetAuthority(url: string): string | null {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1] ?? null;
}

/** How many `Host` header fields the request carried (Node keeps only the first in `headers`). */
function hostFieldCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === 4 && rawHeaders[i]!.toLowerCase() === 'host') count += 1;
  return count;
}

/**
 * Refuses, before anything else is done, a request that does not name this server: 421 problem. A desk without
 * sign-in listens on loopback; a page the user opens on another site could otherwise reach it through DNS rebinding
 * (its host name made to resolve to 127.0.0.1) and read or write every tenant. The host the request names is judged
 * once, from what the client cannot choose: the `Host` header (or, for an absolute-form target, its authority, which
 * RFC 9112 section 3.2.2 makes the one that counts) and, behind a trusted proxy (TRUST_PROXY), the host that proxy
 * forwarded (`X-Forwarded-Host`) too: both must be accepted, so that a client reaching the port directly cannot
 * name an accepted host in a header of its own. A request with two `Host` fields is a 400 (RFC 9112 section 3.2),
 * whatever the configuration. A guard of the request's pass (request-pass.ts): it throws the problem.
 */
export function hostGuard(accepts: ((hostHeader: string) => boolean) | null): (ctx: Koa.Context, record: RequestRecord) => void {
  return (ctx, record) => {
    if (hostFieldCount(ctx.req.rawHeaders) > 1) {
      ctx.set('Connection', 'close');
      throw invalidRequest([{ in: 'header', name: 'Host', message: 'appears more than once' }]);
    }
    if (accepts === null) return;
    const named = targetAuthority(ctx.req.url ?? '') ?? ctx.get('host');
    const forwarded = record.forwardedHost;
    if (accepts(named) && (forwarded === null || accepts(forwarded))) return;
    // The body, if any, is not read: close the connection after answering.
    ctx.set('Connection', 'close');
    throw new Problem('misdirected-request', 'this server does not answer for the host this request names (Host, the target URI or X-Forwarded-Host); see ALLOWED_HOSTS');
  };
}

/**
 * CORS for the configured web UI origins (bearer tokens in `Authorization`, no cookies): a guard of the request's
 * pass (request-pass.ts) that answers a preflight request itself (true).
 */
export function cors(origins: readonly string[]): (ctx: Koa.Context) => boolean {
  const allowed = new Set(origins);
  return (ctx) => {
    const origin = ctx.get('origin');
    if (origin === '' || !allowed.has(origin)) return false;
    ctx.vary('Origin');
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Expose-Headers', 'ETag, Content-Disposition, Retry-After, WWW-Authenticate, X-Build-Label, X-Request-Id, X-Export-Truncated, Deprecation, Sunset, Link');
    // A preflight is answered here, before any token check: browsers never send credentials on it.
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, If-Match, If-None-Match, Range, X-Request-Id');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return true;
    }
    return false;
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether `origin` (an `Origin` header) is the server's own: the scheme's host and port those the request names. */
function isOwnOrigin(origin: string, ctx: Koa.Context, forwardedHost: string | null): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (an opaque origin: a sandboxed frame, a file) and anything else that is no origin
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const sameHost = (host: string | null): boolean => {
    if (host === null || host === '') return false;
    try {
      return new URL(`${url.protocol}//${host}`).host === url.host;
    } catch {
      return false;
    }
  };
  return sameHost(forwardedHost) || sameHost(ctx.get('host'));
}

/**
 * Refuses, before the body is read, a request that changes a desk without sign-in and comes from another site, the
 * way a browser-facing server applies Fetch Metadata: an unsafe method (POST, PUT, DELETE), or an operation that
 * needs the editor or admin role whatever its method (`GET /api/refresh`), carrying `Sec-Fetch-Site: cross-site` or
 * an `Origin` that is neither the server's own nor listed in CORS_ORIGINS: 403 problem. Browsers send those
 * headers; tools that do not (curl, generated clients) are not affected, and reads are left to CORS. With sign-in
 * this is not installed: a page cannot make a browser send the bearer token. A guard of the request's pass
 * (request-pass.ts): it throws the problem.
 */
export function crossSiteGuard(corsOrigins: readonly string[]): (ctx: Koa.Context, record: RequestRecord) => void {
  const listed = new Set(corsOrigins);
  return (ctx, record) => {
    const site = ctx.get('sec-fetch-site');
    const origin = ctx.get('origin');
    if ((site === '' && origin === '') || listed.has(origin)) return;
    if (site !== 'cross-site' && (origin === '' || isOwnOrigin(origin, ctx, record.forwardedHost))) return;
    const operation = record.operation;
    const role = operation?.rule.role;
    // a route that does not exist gets its 404 or 405
    if (operation === null || (SAFE_METHODS.has(ctx.method) && role !== 'editor' && role !== 'admin')) return;
    // The body, if any, is not read: close the connection after answering.
    ctx.set('Connection', 'close');
    const from = site === 'cross-site' ? 'Sec-Fetch-Site: cross-site' : `Origin ${origin}`;
    throw new Problem('forbidden', `a request from another site (${from}) may not change a desk without sign-in; only its own pages and the origins in CORS_ORIGINS may`);
  };
}
