import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import proxyaddr from 'proxy-addr';
import { MAX_PROXY_HOPS, type TrustProxy } from '../config.js';

/** proxy-addr's trust function for TRUST_PROXY: the first `hops` addresses, or the listed addresses and ranges. */
export function trustOf(trust: TrustProxy): (address: string, hop: number) => boolean {
  if (trust.kind === 'hops') {
    const hops = trust.hops;
    return (_address, hop) => hop < hops;
  }
  return proxyaddr.compile([...trust.addresses]);
}

/** What a chain of trusted proxies vouched for: the client's address and the host it asked for, each null when none did. */
export interface ForwardedClient {
  address: string | null;
  host: string | null;
}

/**
 * With TRUST_PROXY: the client address (for the limits on costly work and the audit line) is the rightmost
 * `X-Forwarded-For` entry that no trusted proxy added, found by proxy-addr walking from the connection's peer while
 * it is trusted; the host is the `X-Forwarded-Host` entry the outermost trusted proxy wrote. A request whose peer
 * is not trusted keeps its peer address and its `Host`: a client cannot choose what it is counted as.
 */
export function forwardedClientOf(trust: TrustProxy): (req: IncomingMessage) => ForwardedClient | null {
  const trusted = trustOf(trust);
  return (req) => {
    const forwardedFor = req.headers['x-forwarded-for'];
    if (typeof forwardedFor !== 'string' || forwardedFor === '') return null;
    // only the entries a chain of MAX_PROXY_HOPS proxies can have written are walked: a long header costs nothing more
    const chain = proxyaddr.all(withForwardedFor(req, lastEntries(forwardedFor, MAX_PROXY_HOPS + 1)), trusted);
    // chain: the peer, then each address a trusted proxy vouched for; its last one is the client
    const address = chain.findLast((candidate) => net.isIP(candidate) !== 0) ?? null;
    const proxies = chain.length - 1;
    const hosts = proxies > 0 ? req.headers['x-forwarded-host'] : undefined;
    const host = typeof hosts === 'string' && hosts !== '' ? lastEntries(hosts, proxies).split(',')[0]!.trim() : null;
    return { address, host };
  };
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
