import net from 'node:net';
import { EVERY_TENANT, tenantScopeOf, type TenantScope } from '../tenants/tenants.js';

/** The roles of the contract, each including the ones before it. */
export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** True when `value` names a role. */
export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** The roles a set of granted role names amounts to: `editor` includes `viewer`, `admin` includes both. */
export function effectiveRoles(granted: readonly unknown[]): Role[] {
  const highest = Math.max(-1, ...granted.filter(isRole).map((r) => ROLES.indexOf(r)));
  return ROLES.slice(0, highest + 1);
}

/** Who is asking: the token's subject with sign-in, else the local desk user at a client address. */
export interface Caller {
  readonly mode: 'none' | 'oidc';
  /** The token's `sub` (oidc); null without sign-in. */
  readonly sub: string | null;
  /** The token's `name` (else `sub`) and `email` (oidc); null without sign-in, where identity comes from git. */
  readonly name: string | null;
  readonly email: string | null;
  /** Effective roles (hierarchy applied). */
  readonly roles: readonly Role[];
  readonly scope: TenantScope;
  /**
   * The key costly-work limits count under: `sub` with sign-in, the client address without (an IPv6 address by its
   * /64 network, addressLimitKey).
   */
  readonly limitKey: string;
  /** The client address (for the audit line). */
  readonly address: string;
  /** When the bearer token expires (its `exp`, in ms since the epoch); absent without a token. */
  readonly expiresAtMs?: number;
}

/** The caller of a server without sign-in: may do everything on every tenant; limits count per client address. */
export function localCaller(address: string): Caller {
  return { mode: 'none', sub: null, name: null, email: null, roles: ROLES, scope: EVERY_TENANT, limitKey: addressLimitKey(address), address };
}

/** The caller of a public operation with sign-in on: nobody in particular, no roles, no tenants. */
export function anonymousCaller(address: string): Caller {
  return { mode: 'oidc', sub: null, name: null, email: null, roles: [], scope: tenantScopeOf([]).scope, limitKey: addressLimitKey(address), address };
}

/**
 * Who a request is from before (or without) a verified token: the local desk user without sign-in, nobody in
 * particular with it.
 */
export const unverifiedCaller = (signIn: boolean, address: string): Caller => (signIn ? anonymousCaller(address) : localCaller(address));

/** True when the caller holds `role` (or a role that includes it). */
export const holds = (caller: Caller, role: Role): boolean => caller.roles.includes(role);

/**
 * The limit key of a client address: an IPv4 address as it is (an IPv4-mapped IPv6 address as its IPv4 address),
 * an IPv6 address by its /64 network, the least any one client is given (RFC 6177), within which it can pick a new
 * address for every request; in any spelling (zeros, case, `::`, a zone).
 */
export function addressLimitKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (!net.isIPv6(bare)) return `address:${address}`;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `address:${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `address:${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part as two groups). */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((piece) => {
      if (!piece.includes('.')) return [parseInt(piece, 16)];
      const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const at = address.indexOf('::');
  if (at < 0) return parse(address);
  const head = parse(address.slice(0, at));
  const tail = parse(address.slice(at + 2));
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}
