import type Koa from 'koa';
import { Problem } from '../common/problems.js';
import type { RequestRecord } from './request-record.js';

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
