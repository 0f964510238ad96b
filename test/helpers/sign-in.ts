import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { OidcTiming } from '../../src/auth/oidc.js';
import type { ContractOperation } from './contract.js';
import { eventStreamBeginning, isEventStream } from './http.js';
import { OidcProvider } from './oidc-provider.js';
import { startTestServer, type TestServer } from './server.js';

/** A server in AUTH_MODE=oidc over its own demo data, trusting `provider`, with every log line kept. */
export interface SignInServer extends TestServer {
  /** Log lines written so far, parsed. */
  readonly lines: Record<string, any>[];
  /** The audit lines among them. */
  audit(): Record<string, any>[];
}

/** Starts the real server with sign-in against the local provider (port 0). */
export async function startSignInServer(provider: OidcProvider, env: Record<string, string> = {}, timing?: OidcTiming): Promise<SignInServer> {
  const lines: Record<string, any>[] = [];
  const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  const server = await startTestServer({
    env: { AUTH_MODE: 'oidc', OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: provider.audience, GITHUB_API_URL: 'http://127.0.0.1:9', ...env },
    log,
    ...(timing === undefined ? {} : { oidcTiming: timing }),
  });
  return Object.assign(server, { lines, audit: () => lines.filter((l) => l.audit === true) });
}

/**
 * Registers hooks on the enclosing `describe`: a local OpenID provider and a sign-in server trusting it (with `env`,
 * and `timing` when given), started before its tests and closed after them. Read `provider` and `server` inside the tests.
 */
export function signInWorld(env: Record<string, string> = {}, timing?: OidcTiming): { readonly provider: OidcProvider; readonly server: SignInServer } {
  const world = {} as { provider: OidcProvider; server: SignInServer };
  before(async () => {
    world.provider = await OidcProvider.start();
    world.server = await startSignInServer(world.provider, env, timing);
  });
  after(async () => {
    await world.server?.close();
    await world.provider?.close();
  });
  return world;
}

/** `Authorization` header of a bearer token. */
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** The operation's example request with its tenant replaced by `tenant` wherever it takes one. */
export function exampleWithTenant(op: ContractOperation, tenant: string): { url: string; body: unknown } {
  const [pathname, query = ''] = op.exampleUrl.split('?');
  const params = new URLSearchParams(query);
  let url = pathname!;
  if (op.tenantIn === 'path') {
    const segments = op.path.split('/');
    const actual = url.split('/');
    segments.forEach((segment, i) => {
      if (segment === '{tenant}') actual[i] = encodeURIComponent(tenant);
    });
    url = actual.join('/');
  }
  if (op.tenantIn === 'query') {
    params.set('tenant', tenant);
    // refresh reads `tenant` only with scope=tenant
    if (params.has('scope')) params.set('scope', 'tenant');
  }
  let body = op.exampleBody;
  // a body that names a tenant or a scope (refresh: body values win over the query)
  if (body !== null && typeof body === 'object' && ('tenant' in body || 'scope' in body)) {
    body = { ...body, tenant, ...('scope' in body ? { scope: 'tenant' } : {}) };
  }
  return { url: params.size > 0 ? `${url}?${params}` : url, body };
}

/** Sends the example request of `op` (optionally with another URL and body) with `headers`. */
export async function callExample(
  base: string,
  op: ContractOperation,
  headers: Record<string, string>,
  request: { url: string; body: unknown } = { url: op.exampleUrl, body: op.exampleBody },
): Promise<Response> {
  const init: RequestInit = { method: op.method, headers: { ...headers } };
  if (request.body !== undefined) {
    init.body = JSON.stringify(request.body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await fetch(base + request.url, init);
  // an event stream ends only when the server ends it: its beginning stands for its body
  if (!isEventStream(response)) return response;
  return new Response(await eventStreamBeginning(response), { status: response.status, headers: response.headers });
}

/**
 * Everything a request could change, as one digest per place: every row of every table of the app database and
 * every file (path and bytes) under the AFS.
 */
export function storedState(dataDir: string): { appDb: string; afs: string } {
  const db = new Database(path.join(dataDir, 'app.sqlite'), { readonly: true, fileMustExist: true });
  const appDb = createHash('sha256');
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    for (const { name } of tables) {
      appDb.update(`${name}\n`);
      for (const row of db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}" ORDER BY rowid`).all()) appDb.update(`${JSON.stringify(row)}\n`);
    }
  } finally {
    db.close();
  }
  const afs = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else afs.update(`${path.relative(dataDir, full)}\n`).update(fs.readFileSync(full));
    }
  };
  walk(path.join(dataDir, 'afs'));
  return { appDb: appDb.digest('hex'), afs: afs.digest('hex') };
}
