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
  /** The key costly-work limits count under: `sub` with sign-in, the client address without. */
  readonly limitKey: string;
  /** The client address (for the audit line). */
  readonly address: string;
}

/** The caller of a server without sign-in: may do everything on every tenant; limits count per client address. */
export function localCaller(address: string): Caller {
  return { mode: 'none', sub: null, name: null, email: null, roles: ROLES, scope: EVERY_TENANT, limitKey: `address:${address}`, address };
}

/** The caller of a public operation with sign-in on: nobody in particular, no roles, no tenants. */
export function anonymousCaller(address: string): Caller {
  return { mode: 'oidc', sub: null, name: null, email: null, roles: [], scope: tenantScopeOf([]).scope, limitKey: `address:${address}`, address };
}

/**
 * Who a request is from before (or without) a verified token: the local desk user without sign-in, nobody in
 * particular with it.
 */
export const unverifiedCaller = (signIn: boolean, address: string): Caller => (signIn ? anonymousCaller(address) : localCaller(address));

/** True when the caller holds `role` (or a role that includes it). */
export const holds = (caller: Caller, role: Role): boolean => caller.roles.includes(role);
