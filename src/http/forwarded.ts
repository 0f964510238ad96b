import type Koa from 'koa';
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import proxyaddr from 'proxy-addr';
import { MAX_PROXY_HOPS, type TrustProxy } from '../config.js';

/** Where the host a trusted proxy forwarded (`X-Forwarded-Host`) is kept (ctx.state). */
const FORWARDED_HOST_STATE = 'forwardedHost';

/** proxy-addr's trust function for TRUST_PROXY: the first `hops` addresses, or the listed addresses and ranges. */
export function trustOf(trust: TrustProxy): (address: string, hop: number) => boolean {
  if (trust.kind === 'hops') {
    const hops = trust.hops;
    return (_address, hop) => hop < hops;
  }
  return proxyaddr.compile([...trust.addresses]);
}

/**
 * With TRUST_PROXY: the client address (`ctx.ip`, for the limits on costly work and the audit line) is the rightmost
 * `X-Forwarded-For` entry that no trusted proxy added, found by proxy-addr walking from the connection's peer while
 * it is trusted; the host is the `X-Forwarded-Host` entry the outermost trusted proxy wrote. A request whose peer
 * is not trusted keeps its peer address and its `Host`: a client cannot choose what it is counted as. The first
 * step of the request's pass (request-pass.ts).
 */
export function forwardedClient(trust: TrustProxy): (ctx: Koa.Context) => void {
  const trusted = trustOf(trust);
  return (ctx) => {
    const forwardedFor = ctx.get('x-forwarded-for');
    if (forwardedFor !== '') {
      // only the entries a chain of MAX_PROXY_HOPS proxies can have written are walked: a long header costs nothing more
      const chain = proxyaddr.all(withForwardedFor(ctx.req, lastEntries(forwardedFor, MAX_PROXY_HOPS + 1)), trusted);
      // chain: the peer, then each address a trusted proxy vouched for; its last one is the client
      const client = chain.findLast((address) => net.isIP(address) !== 0);
      if (client !== undefined) ctx.request.ip = client;
      const proxies = chain.length - 1;
      const hosts = proxies > 0 ? ctx.get('x-forwarded-host') : '';
      if (hosts !== '') {
        const entries = lastEntries(hosts, proxies).split(',');
        ctx.state[FORWARDED_HOST_STATE] = entries[0]!.trim();
      }
    }
  };
}

/** The host the request was sent to: a trusted proxy's `X-Forwarded-Host` when there is one, else the `Host` header. */
export function requestHost(ctx: Koa.Context): string {
  return forwardedHost(ctx) ?? ctx.get('host');
}

/** The host a trusted proxy forwarded (`X-Forwarded-Host`), or null when none did. */
export function forwardedHost(ctx: Koa.Context): string | null {
  return (ctx.state[FORWARDED_HOST_STATE] as string | undefined) ?? null;
}

/** The last `count` comma-separated entries of a header value (all of them when it has fewer). */
function lastEntries(value: string, count: number): string {
  let start = value.length;
  for (let found = 0; found < count; found += 1) {
    start = value.lastIndexOf(',', start - 1);
    if (start < 0) return value;
  }
  return value.slice(start + 1);
}

/** What proxy-addr reads of a request (the peer's address and `X-Forwarded-For`), with the header given. */
function withForwardedFor(req: IncomingMessage, forwardedFor: string): IncomingMessage {
  return { socket: req.socket, connection: req.socket, headers: { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage;
}
