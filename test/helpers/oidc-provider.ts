import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** Claims a test token carries; `tenants` and `roles` under the server's default claim names. */
export interface TestClaims extends JWTPayload {
  sub?: string;
  name?: string;
  email?: string;
  tenants?: unknown;
  roles?: unknown;
}

/** How a token is made: defaults are a valid token of the current key. */
export interface TokenOptions {
  /** Seconds from now; negative for an expired token. Default 600. */
  expiresIn?: number;
  /** Seconds from now for `nbf`; omitted by default. */
  notBefore?: number;
  /** Seconds from now for `iat`; default 0 (now). */
  issuedAt?: number;
  issuer?: string;
  audience?: string | string[];
  /** Overrides the `kid` header (an unknown kid, say). */
  kid?: string;
  /** Leave these claims out of the token. */
  omit?: readonly string[];
}

interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicJwk: JWK;
  spki: string;
}

/**
 * A local OpenID provider on loopback for tests: the discovery document and the JWK set over real HTTP (Keycloak's
 * paths, issuer `http://127.0.0.1:<port>/realms/desk`), keys made here with jose, and tokens valid or broken in
 * exactly one way. It counts JWKS requests and can rotate its key or stop answering JWKS requests.
 */
export class OidcProvider {
  /** JWKS requests answered (or refused) so far. */
  jwksRequests = 0;
  /** While false, JWKS requests get 503. */
  jwksAvailable = true;
  private key!: SigningKey;

  private constructor(
    private readonly server: http.Server,
    readonly issuer: string,
    readonly audience: string,
  ) {}

  /** Starts a provider with an RS256 key on a free loopback port. */
  static async start(audience = 'analytics-desk'): Promise<OidcProvider> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const provider = new OidcProvider(server, `http://127.0.0.1:${port}/realms/desk`, audience);
    provider.key = await makeKey('RS256', 'key-1');
    server.on('request', (req, res) => provider.answer(req, res));
    return provider;
  }

  /** The discovery URL the server reads. */
  get discoveryUrl(): string {
    return `${this.issuer}/.well-known/openid-configuration`;
  }

  /** The kid of the key that signs now. */
  get kid(): string {
    return this.key.kid;
  }

  /** Replaces the signing key by a new one (the JWK set then holds only the new key). */
  async rotate(alg: 'RS256' | 'ES256' = 'ES256'): Promise<void> {
    this.key = await makeKey(alg, `key-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  }

  /** A signed token: valid unless the options break it. */
  async token(claims: TestClaims = {}, options: TokenOptions = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const payload: JWTPayload = { sub: 'u-anna', name: 'Anna Muster', email: 'anna.muster@kantonsspital.example', tenants: ['*'], roles: ['admin'], ...claims };
    for (const name of options.omit ?? []) delete payload[name];
    const jwt = new SignJWT(payload).setProtectedHeader({ alg: this.key.alg, kid: options.kid ?? this.key.kid, typ: 'JWT' }).setIssuedAt(now + (options.issuedAt ?? 0));
    if (!options.omit?.includes('iss')) jwt.setIssuer(options.issuer ?? this.issuer);
    if (!options.omit?.includes('aud')) jwt.setAudience(options.audience ?? this.audience);
    if (!options.omit?.includes('exp')) jwt.setExpirationTime(now + (options.expiresIn ?? 600));
    if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
    return jwt.sign(this.key.privateKey);
  }

  /** Tokens that each fail one check the server must make, by name. */
  async badTokens(claims: TestClaims = {}): Promise<Record<string, string>> {
    const stranger = await makeKey(this.key.alg, this.key.kid);
    const payload = { sub: 'u-anna', tenants: ['*'], roles: ['admin'], iss: this.issuer, aud: this.audience, ...claims };
    return {
      expired: await this.token(claims, { expiresIn: -3600 }),
      'not yet valid': await this.token(claims, { notBefore: 3600 }),
      'wrong audience': await this.token(claims, { audience: 'another-service' }),
      'wrong issuer': await this.token(claims, { issuer: 'http://127.0.0.1:1/realms/other' }),
      // signed by a key the provider does not publish, under the kid of one it does
      'bad signature': await new SignJWT(payload).setProtectedHeader({ alg: stranger.alg, kid: this.key.kid }).setIssuedAt().setExpirationTime('10m').sign(stranger.privateKey),
      'alg none': new UnsecuredJWT(payload).setIssuedAt().setExpirationTime('10m').encode(),
      // the classic key confusion: HMAC with the provider's public key (PEM) as the secret
      'HS256 with the public key': await new SignJWT(payload)
        .setProtectedHeader({ alg: 'HS256', kid: this.key.kid })
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(this.key.spki)),
      'unknown kid': await this.token(claims, { kid: 'no-such-key' }),
      'no sub': await this.token(claims, { omit: ['sub'] }),
      'empty sub': await this.token({ ...claims, sub: ' ' }),
      'sub not a text': await this.token({ ...claims, sub: 42 as unknown as string }),
      'no exp': await this.token(claims, { omit: ['exp'] }),
      malformed: 'not-a-jwt',
    };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = new URL(req.url ?? '/', this.issuer).pathname;
    if (path === '/realms/desk/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer: this.issuer,
        jwks_uri: `${this.issuer}/protocol/openid-connect/certs`,
        authorization_endpoint: `${this.issuer}/protocol/openid-connect/auth`,
        token_endpoint: `${this.issuer}/protocol/openid-connect/token`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256', 'ES256'],
      });
    }
    if (path === '/realms/desk/protocol/openid-connect/certs') {
      this.jwksRequests++;
      if (!this.jwksAvailable) return json(res, 503, { error: 'unavailable' });
      return json(res, 200, { keys: [{ ...this.key.publicJwk, kid: this.key.kid, alg: this.key.alg, use: 'sig' }] });
    }
    json(res, 404, { error: 'not found' });
  }
}

async function makeKey(alg: 'RS256' | 'ES256', kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: await exportJWK(publicKey), spki: await exportSPKI(publicKey) };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
