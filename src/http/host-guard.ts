import type Koa from 'koa';
import { isLoopbackAddress } from '../config.js';
import { HttpProblem } from './errors.js';
import { requestHost } from './forwarded.js';

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
  return (hostHeader) => {
    const name = hostName(hostHeader);
    if (name === null) return false;
    return isLoopbackAddress(name) || exact.has(name) || suffixes.some((suffix) => name.endsWith(suffix));
  };
}

/** The host of a `Host` header value, lower-cased, without port and trailing dot; null when malformed. */
export function hostName(header: string): string | null {
  const value = header.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(value);
  if (match === null) return null;
  return match[1]!.replace(/\.$/, '');
}

/**
 * Refuses, before anything else is done, a request whose `Host` is not one of this server's names: 421 problem.
 * A desk without sign-in listens on loopback; a page the user opens on another site could otherwise reach it
 * through DNS rebinding (its host name made to resolve to 127.0.0.1) and read or write every tenant.
 * `onRefused` records the refusal for the audit line. Behind a trusted proxy (TRUST_PROXY) the host checked is the
 * one the proxy forwarded (`X-Forwarded-Host`), else the `Host` header.
 */
export function hostGuard(accepts: ((hostHeader: string) => boolean) | null, onRefused: (ctx: Koa.Context) => void): Koa.Middleware {
  return async (ctx, next) => {
    if (accepts === null || accepts(requestHost(ctx))) {
      await next();
      return;
    }
    onRefused(ctx);
    // The body, if any, is not read: close the connection after answering.
    ctx.set('Connection', 'close');
    throw new HttpProblem('misdirected-request', 'this server does not answer for the host named in the Host header; see ALLOWED_HOSTS');
  };
}
