import { createLocalJWKSet, errors, jwtVerify, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters, type JWTPayload, type LocalJWKSet } from 'jose';
import { maskedUrl } from '../common/secrets.js';
import { LOOPBACK_HOSTS, type AuthConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { tenantScopeOf } from '../tenants/tenants.js';
import { effectiveRoles, type Caller } from './caller.js';

type OidcSettings = Extract<AuthConfig, { mode: 'oidc' }>;

/** Asymmetric signature algorithms only: `none` and HMAC (HS*) tokens are refused before any key is looked up. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** A token that fails a check; the message names the check and never holds the token. */
export class TokenRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenRejected';
  }
}

/** The identity provider could not be used at start; the message is one line naming OIDC_ISSUER. */
export class IssuerUnusable extends Error {
  constructor(
    message: string,
    /** True when retrying cannot help (the provider answered, but with the wrong document). */
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'IssuerUnusable';
  }
}

/** Verifies bearer tokens and turns their claims into a Caller. */
export interface TokenVerifier {
  verify(token: string, address: string): Promise<Caller>;
}

/** Timing of the provider calls and the clock they are measured by; the defaults are the server's, tests shorten them or set the clock. */
export interface OidcTiming {
  /** At most one JWKS request per this many ms (unknown `kid`, failed fetch, keys past their age). */
  readonly cooldownMs: number;
  /** Keys older than this are fetched again before the next verification. */
  readonly cacheMaxAgeMs: number;
  /** How long start may wait for the provider (it may be starting too). */
  readonly startDeadlineMs: number;
  readonly requestTimeoutMs: number;
  /**
   * The clock (ms since the epoch) that every time above is measured by, and that a token's exp, nbf and iat,
   * and how long a verified token is remembered, are checked against.
   */
  readonly now: () => number;
  /** Resolves once `ms` have passed on `now` (the pause between two attempts at start). */
  readonly wait: (ms: number) => Promise<void>;
}

export const DEFAULT_OIDC_TIMING: OidcTiming = {
  cooldownMs: 30_000,
  cacheMaxAgeMs: 600_000,
  startDeadlineMs: 15_000,
  requestTimeoutMs: 5_000,
  now: () => Date.now(),
  wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Verified tokens remembered (most recently used kept), and for how long at most. */
const REMEMBERED_TOKENS = 1000;
const REMEMBER_MS = 60_000;
/** Longest `sub` accepted (OpenID Connect Core: at most 255 ASCII characters). */
const MAX_SUB_LENGTH = 255;

/**
 * Reads the provider's discovery document and its keys (retrying until the start deadline), then verifies tokens
 * with jose: signature with a key of `jwks_uri`, `iss` equal to the issuer, `aud` containing the audience,
 * `exp`/`nbf`/`iat` within the clock tolerance, `sub` present. Keys are cached; an unknown `kid` fetches them again at
 * most once per cooldown, and when a fetch fails the keys fetched before stay in use (logged).
 */
export async function createOidcVerifier(settings: OidcSettings, log: Logger, timing: OidcTiming = DEFAULT_OIDC_TIMING): Promise<TokenVerifier> {
  const deadline = timing.now() + timing.startDeadlineMs;
  const jwksUri = await untilDeadline(deadline, timing, () => readDiscovery(settings.issuer, timing.requestTimeoutMs));
  const keys = new ProviderKeys(jwksUri, timing, log);
  await untilDeadline(deadline, timing, async () => {
    try {
      await keys.reload();
    } catch (err) {
      throw new IssuerUnusable(`the keys at ${maskedUrl(jwksUri)} could not be read: ${reasonOf(err)}`, false);
    }
  });
  keys.guard();
  log.info({ issuer: settings.issuer, jwksUri: maskedUrl(jwksUri) }, 'OpenID provider ready; bearer tokens required');

  // A browser sends the same token with every request until it expires: its signature (about 0.1 ms of CPU
  // with RS256, as much as the rest of a small request) is checked once, and the caller it describes is
  // remembered for at most a minute, never past the token's exp (plus the clock tolerance).
  const remembered = new Map<string, { caller: Omit<Caller, 'address'>; untilMs: number }>();
  return {
    async verify(token, address) {
      const now = timing.now();
      const known = remembered.get(token);
      if (known !== undefined) {
        remembered.delete(token);
        if (now < known.untilMs) {
          remembered.set(token, known);
          return { ...known.caller, address };
        }
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys.getKey, {
          issuer: settings.issuer,
          audience: settings.audience,
          clockTolerance: settings.clockToleranceS,
          currentDate: new Date(now),
          algorithms: ASYMMETRIC_ALGORITHMS,
          requiredClaims: ['exp', 'sub'],
        }));
      } catch (err) {
        if (err instanceof errors.JOSEError) throw new TokenRejected(rejectionOf(err));
        throw err;
      }
      // jose checks that `iat` is a number, not when it was: a token issued in the future is refused like one whose
      // nbf is, past the same tolerance (a token minted ahead of time would otherwise be good for longer than meant)
      if (typeof payload.iat === 'number' && payload.iat > now / 1000 + settings.clockToleranceS) {
        throw new TokenRejected('the token is issued in the future (iat)');
      }
      // jose checks that `sub` is present, not what it holds: limits and audit lines are keyed by it
      if (typeof payload.sub !== 'string' || payload.sub.trim() === '' || payload.sub.length > MAX_SUB_LENGTH) {
        throw new TokenRejected(`the token's "sub" claim is not a text of 1 to ${MAX_SUB_LENGTH} characters`);
      }
      const caller = callerOf(payload, settings, log);
      remembered.set(token, { caller, untilMs: Math.min(now + REMEMBER_MS, ((payload.exp as number) + settings.clockToleranceS) * 1000) });
      if (remembered.size > REMEMBERED_TOKENS) remembered.delete(remembered.keys().next().value as string);
      return { ...caller, address };
    },
  };
}

/** The Caller a verified token describes (all but the client address). */
function callerOf(payload: JWTPayload, settings: OidcSettings, log: Logger): Omit<Caller, 'address'> {
  const sub = payload.sub as string;
  const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
  const { scope, ignored } = tenantScopeOf(listClaim(payload, settings.tenantsClaim));
  if (ignored.length > 0) log.warn({ sub, claim: settings.tenantsClaim, ignored }, 'tenant entries ignored (use *, <pack>.* or <pack>.<slug>)');
  return {
    mode: 'oidc',
    sub,
    name: text(payload.name) ?? sub,
    email: text(payload.email),
    roles: effectiveRoles(listClaim(payload, settings.rolesClaim)),
    scope,
    limitKey: `sub:${sub}`,
    expiresAtMs: (payload.exp as number) * 1000,
  };
}

/**
 * A claim holding a list: an array, or one string. The name is looked up as it is first (Auth0's namespaced
 * claims contain dots), then as a dotted path into nested objects (Keycloak's `realm_access.roles`).
 */
export function listClaim(payload: JWTPayload, name: string): unknown[] {
  let value: unknown = payload[name];
  if (value === undefined && name.includes('.')) {
    value = name.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), payload);
  }
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}

/** What failed, in words that name the check (never the token). */
function rejectionOf(err: errors.JOSEError): string {
  if (err instanceof errors.JWTExpired) return 'the token has expired (exp)';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing') return `the token has no "${safeClaimName(err.claim)}" claim`;
    if (err.claim === 'nbf') return 'the token is not valid yet (nbf)';
    if (err.claim === 'iss') return 'the token was issued by another issuer (iss)';
    if (err.claim === 'aud') return 'the token is meant for another audience (aud)';
    return `the token's "${safeClaimName(err.claim)}" claim is invalid`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the token is not signed with an accepted asymmetric algorithm (alg)';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'the token signature does not verify';
  if (err instanceof errors.JWKSNoMatchingKey) return 'no signing key of the issuer matches the token (kid)';
  return 'the token is malformed';
}

const safeClaimName = (claim: string): string => (/^[A-Za-z0-9_.:-]{1,40}$/.test(claim) ? claim : 'a');

/** Reads `<issuer>/.well-known/openid-configuration` and returns its `jwks_uri` after checking the document. */
async function readDiscovery(issuer: string, timeoutMs: number): Promise<string> {
  // OpenID Connect Discovery 1.0, section 4: a terminating "/" of the issuer is removed before the well-known path.
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let document: unknown;
  try {
    const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
    document = await response.json();
  } catch (err) {
    throw new IssuerUnusable(`the discovery document at ${url} could not be read: ${reasonOf(err)}`, false);
  }
  const fields = (document ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
  if (fields.issuer !== issuer) {
    throw new IssuerUnusable(`the discovery document at ${url} names the issuer ${JSON.stringify(fields.issuer)}, not "${issuer}"`, true);
  }
  let jwksUri: URL;
  try {
    jwksUri = new URL(String(fields.jwks_uri));
  } catch {
    throw new IssuerUnusable(`the discovery document at ${url} has no valid jwks_uri`, true);
  }
  if (jwksUri.protocol !== 'https:' && !(jwksUri.protocol === 'http:' && LOOPBACK_HOSTS.has(jwksUri.hostname))) {
    throw new IssuerUnusable(`the jwks_uri ${maskedUrl(jwksUri.href)} of ${url} is not https`, true);
  }
  return jwksUri.href;
}

/** Why a request failed, in one line: fetch's "fetch failed" names its cause (ECONNREFUSED, ...) only there. */
function reasonOf(err: unknown): string {
  const { message, cause } = err as Error & { cause?: { code?: unknown; message?: unknown } };
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : null;
  return detail === null ? message : `${message} (${detail})`;
}

/** Retries `attempt` once a second (on `timing`'s clock) until it succeeds, fails permanently or the deadline passes. */
async function untilDeadline<T>(deadline: number, timing: OidcTiming, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof IssuerUnusable) || err.permanent || timing.now() + 1000 > deadline) throw err;
      await timing.wait(1000);
    }
  }
}

/**
 * The provider's key set, held as jose's local key set. It is fetched again when a token names a `kid` it lacks and
 * when it is older than `cacheMaxAgeMs`, but once guarded (after start) at most once per cooldown, and when a fetch
 * fails the keys fetched before stay in use (logged): an outage of the provider does not sign anybody out. Every
 * time is read from `timing.now`, which jose's remote key set cannot be given.
 */
class ProviderKeys {
  private local: LocalJWKSet | null = null;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | null = null;
  private guarded = false;

  constructor(
    private readonly url: string,
    private readonly timing: OidcTiming,
    private readonly log: Logger,
  ) {}

  /** The key that verifies a token with this protected header (jose's `getKey`). */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): ReturnType<LocalJWKSet> => {
    if (this.local === null || this.timing.now() - this.fetchedAt >= this.timing.cacheMaxAgeMs) await this.reload();
    if (this.local === null) throw new errors.JWKSNoMatchingKey();
    try {
      return await this.local(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      await this.reload();
      return this.local(header, token);
    }
  };

  /** From now on, requests are spaced by the cooldown and a failed one keeps the keys. */
  guard(): void {
    this.guarded = true;
  }

  /** Fetches the key set, unless guarded and within the cooldown; concurrent callers share one request. */
  async reload(): Promise<void> {
    this.pending ??= this.fetchKeys().finally(() => (this.pending = null));
    await this.pending;
  }

  private async fetchKeys(): Promise<void> {
    const now = this.timing.now();
    if (this.guarded && now - this.lastAttemptAt < this.timing.cooldownMs) return;
    this.lastAttemptAt = now;
    try {
      const response = await fetch(this.url, {
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timing.requestTimeoutMs),
        headers: { accept: 'application/json, application/jwk-set+json' },
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      const set = (await response.json()) as { keys?: unknown };
      if (set === null || typeof set !== 'object' || !Array.isArray(set.keys)) throw new Error('the answer is not a JWK set');
      this.local = createLocalJWKSet(set as JSONWebKeySet);
      this.fetchedAt = now;
    } catch (err) {
      if (!this.guarded) throw err;
      this.log.warn({ url: maskedUrl(this.url), err: (err as Error).message }, 'signing keys could not be fetched; the keys fetched before stay in use');
    }
  }
}
