import type Koa from 'koa';
import { holds, isRole, type Caller, type Role } from '../auth/caller.js';
import { isCostKind, type CostKind } from '../auth/cost-limits.js';
import { TokenRejected, type TokenVerifier } from '../auth/oidc.js';
import { forbidden, Problem } from '../common/problems.js';

/** Who may call one operation, as the contract says: `security: []` is public, else `x-required-role`. */
export interface AccessRule {
  readonly operationId: string;
  /** null: public (no token asked, even with sign-in). */
  readonly role: Role | null;
  /** Every outcome gets an audit line: writes (role editor or admin) and reads marked `x-audit: true`. */
  readonly audited: boolean;
  /** The limit on costly work a call counts against (`x-cost`), or null. */
  readonly cost: CostKind | null;
}

type ContractOperation = { operationId?: string; security?: unknown[]; responses?: Record<string, unknown>; 'x-required-role'?: unknown; 'x-audit'?: unknown; 'x-cost'?: unknown };
type ContractDocument = { security?: unknown[]; paths?: Record<string, Record<string, unknown>> };

/**
 * Reads the access rule of every operation from the contract. An operation whose effective `security` is empty is
 * public; any other must name its role in `x-required-role`. `x-audit: true` marks a read whose every outcome is
 * audited (it gives data away in bulk); `x-cost` names the limit on costly work a call counts against, and such an
 * operation declares its 429. A contract that breaks this is refused at start.
 */
export function accessRules(document: ContractDocument): Map<string, AccessRule> {
  const rules = new Map<string, AccessRule>();
  const problems: string[] = [];
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item[method] as ContractOperation | undefined;
      if (op?.operationId === undefined) continue;
      const security = op.security ?? document.security ?? [];
      const role = op['x-required-role'];
      const audit = op['x-audit'];
      if (audit !== undefined && typeof audit !== 'boolean') problems.push(`${op.operationId} has x-audit ${JSON.stringify(audit)}; it is true or false`);
      const cost = op['x-cost'] ?? null;
      if (cost !== null && !isCostKind(cost)) problems.push(`${op.operationId} has x-cost ${JSON.stringify(cost)}; it is one of narrative, export, signal-tool`);
      if (cost !== null && op.responses?.['429'] === undefined) problems.push(`${op.operationId} names x-cost but declares no 429`);
      const limit = isCostKind(cost) ? cost : null;
      if (security.length === 0) {
        if (role !== undefined) problems.push(`${op.operationId} is public (security: []) but names x-required-role`);
        rules.set(op.operationId, { operationId: op.operationId, role: null, audited: audit === true, cost: limit });
      } else if (!isRole(role)) {
        problems.push(`${op.operationId} needs a token but its x-required-role is ${JSON.stringify(role)}`);
      } else {
        rules.set(op.operationId, { operationId: op.operationId, role, audited: audit === true || role === 'editor' || role === 'admin', cost: limit });
      }
    }
  }
  if (problems.length > 0) throw new Error(`openapi.yaml access rules: ${problems.join('; ')}`);
  return rules;
}

/** What the Authorization header holds: no bearer token, something that is not a bearer token, or one. */
export function bearerToken(header: string): { kind: 'none' } | { kind: 'malformed' } | { kind: 'token'; token: string } {
  const trimmed = header.trim();
  if (!/^bearer(\s|$)/i.test(trimmed)) return { kind: 'none' };
  // RFC 6750 section 2.1: b64token
  const match = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(trimmed);
  return match === null ? { kind: 'malformed' } : { kind: 'token', token: match[1]! };
}

/** 401 with the RFC 6750 challenge; `error="invalid_token"` only when a token was sent (detail non-null). */
export function unauthorized(detail: string | null): Problem {
  return new Problem('unauthorized', detail ?? 'this operation needs a bearer token: send Authorization: Bearer <JWT>', {
    challenge: detail === null ? 'token-required' : 'invalid-token',
  });
}

/** Verifies the request's bearer token: the Caller, or 401 naming the failed check (never echoing the token). */
export async function authenticate(header: string, address: string, verifier: TokenVerifier): Promise<Caller> {
  const offered = bearerToken(header);
  if (offered.kind === 'none') throw unauthorized(null);
  if (offered.kind === 'malformed') throw unauthorized('the Authorization header does not hold a bearer token');
  try {
    return await verifier.verify(offered.token, address);
  } catch (err) {
    if (err instanceof TokenRejected) throw unauthorized(err.message);
    throw err;
  }
}

/** 403 unless the caller holds the operation's role. */
export function authorize(caller: Caller, rule: AccessRule): void {
  if (rule.role === null || holds(caller, rule.role)) return;
  const granted = caller.roles.length === 0 ? 'no role of this server' : `the roles ${caller.roles.join(', ')}`;
  throw forbidden(`${rule.operationId} needs the role ${rule.role}; the token grants ${granted}`);
}

/**
 * Marks a response as depending on the caller: `Vary: Authorization`, and `Cache-Control` made `private`
 * (a `public` directive is dropped), so that no shared cache stores it.
 */
export function privateToCaller(ctx: Koa.Context): void {
  ctx.vary('Authorization');
  const directives = String(ctx.response.get('Cache-Control') ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '' && d.toLowerCase() !== 'public');
  if (!directives.some((d) => d.toLowerCase() === 'private')) directives.unshift('private');
  ctx.set('Cache-Control', directives.join(', '));
}
