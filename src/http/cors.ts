import type Koa from 'koa';

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
