// `npm run test:contract [-- --world <name> | --endpoint <url> [--token <jwt>]]`: Dredd checks a server against openapi.yaml with
// contract-tests/hooks.cjs, and one closing line says `contract: N passed, N failed, N skipped`; the exit code is 1
// on any failure.
//  - Without --endpoint: the server and everything around it are started here (contract-tests/local-world.ts),
//    so that every declared status can be provoked, once in each mode the server runs in: with and without
//    sign-in, on PostgreSQL and on SQLite (`--world <name>` runs one of them). A header the contract declares
//    but one mode does not send fails that mode's run.
//  - With --endpoint: a server that is already running (staging, a container). The hooks prepare what they need
//    through the API only; transactions that need more (files on the server's disk, a second token, spending
//    the caller's limits) are skipped, each listed by name with its reason. --token (or CONTRACT_TOKEN) is the
//    bearer token when the server asks for one: it needs the role admin and the tenants claim `*`.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { runDredd, type DreddOutcome } from './dredd.js';
import { startLocalWorld, type LocalWorldOptions } from './local-world.js';

/** `--name value` or `--name=value` from the command line. */
function option(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) return args[i + 1];
    if (args[i]!.startsWith(`--${name}=`)) return args[i]!.slice(name.length + 3);
  }
  return undefined;
}

/** The closing line; 0 when everything checked passed, else 1. */
function close(outcome: DreddOutcome, printOnFailure: () => void = () => {}): number {
  const failed = !outcome.clean || outcome.failed > 0 || outcome.passed === 0;
  if (failed) printOnFailure();
  console.log(`contract: ${outcome.passed} passed, ${outcome.failed} failed, ${outcome.skipped} skipped`);
  return failed ? 1 : 0;
}

/** The modes the local server runs in, by name: each is checked by a run of its own. */
const WORLDS: Readonly<Record<string, Required<LocalWorldOptions>>> = {
  'sign-in-postgresql': { signIn: true, appDatabase: 'postgresql' },
  'sign-in-sqlite': { signIn: true, appDatabase: 'sqlite' },
  'no-sign-in-postgresql': { signIn: false, appDatabase: 'postgresql' },
  'no-sign-in-sqlite': { signIn: false, appDatabase: 'sqlite' },
};

/** Runs Dredd against a local world in each of `names`, one after the other; the closing line sums them. */
async function againstLocalServers(names: readonly string[], workDir: string): Promise<number> {
  const total = { passed: 0, failed: 0, skipped: 0, clean: true };
  for (const name of names) {
    const dataDir = path.join(workDir, name);
    fs.mkdirSync(dataDir);
    console.log(`contract [${name}]: starting`);
    const world = await startLocalWorld(dataDir, WORLDS[name]);
    try {
      const outcome = await runDredd(world.url, world.hookEnv, dataDir);
      const failed = !outcome.clean || outcome.failed > 0 || outcome.passed === 0;
      if (failed) console.log(`server log of ${name} (last 60 lines):\n${world.logTail(60)}`);
      console.log(`contract [${name}]: ${outcome.passed} passed, ${outcome.failed} failed, ${outcome.skipped} skipped`);
      total.passed += outcome.passed;
      total.failed += outcome.failed;
      total.skipped += outcome.skipped;
      total.clean &&= !failed;
    } finally {
      await world.close();
    }
  }
  return close(total);
}

/** Checks that the deployment answers and whether it asks for a token; then runs Dredd against it. */
async function againstEndpoint(endpoint: string, token: string | undefined, workDir: string): Promise<number> {
  let base: URL;
  try {
    base = new URL(endpoint);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error('scheme');
  } catch {
    console.error(`--endpoint must be an http(s) URL (got "${endpoint}")`);
    return 2;
  }
  const url = base.href.replace(/\/+$/, '');
  let anonymous: Response;
  try {
    if ((await fetch(`${url}/health`)).status >= 500) console.log(`note: ${url}/health answers an error; checking anyway`);
    anonymous = await fetch(`${url}/api/identity`);
  } catch (err) {
    console.error(`cannot reach ${url}: ${(err as Error).message}`);
    return 2;
  }
  const signIn = anonymous.status === 401;
  if (signIn && token === undefined) {
    console.error(`${url} asks for a bearer token: pass --token <jwt> (role admin, tenants claim "*") or set CONTRACT_TOKEN`);
    return 2;
  }
  if (signIn) {
    const identity = await fetch(`${url}/api/identity`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await identity.json().catch(() => ({}))) as { roles?: string[]; tenants?: string[]; detail?: string };
    if (identity.status !== 200) {
      console.error(`${url} refuses the token: ${identity.status} ${body.detail ?? ''}`);
      return 2;
    }
    if (!body.roles?.includes('admin') || !body.tenants?.includes('*')) {
      console.log(`note: the token grants roles [${body.roles?.join(', ')}] on [${body.tenants?.join(', ')}]; transactions that need more will fail`);
    }
  }
  const hostCheck = (await statusWithHost(base, 'misdirected.invalid')) === 421;
  console.log(`checking ${url} (${signIn ? 'sign-in: bearer token' : 'no sign-in'}; ${hostCheck ? 'Host names checked' : 'every Host accepted'})`);
  const outcome = await runDredd(url, {
    CONTRACT_MODE: 'endpoint',
    CONTRACT_SIGN_IN: signIn ? 'on' : 'off',
    CONTRACT_HOST_CHECK: hostCheck ? 'on' : 'off',
    CONTRACT_TOKENS: JSON.stringify(signIn ? { admin: token } : {}),
  }, workDir);
  return close(outcome);
}

/** The status of `GET /health` sent with another `Host` header (fetch cannot set one). */
function statusWithHost(base: URL, host: string): Promise<number> {
  const client = base.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(new URL('/health', base), { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const endpoint = option(args, 'endpoint');
  const token = option(args, 'token') ?? (process.env.CONTRACT_TOKEN || undefined);
  const world = option(args, 'world');
  if (world !== undefined && !(world in WORLDS)) {
    console.error(`--world must be one of ${Object.keys(WORLDS).join(', ')} (got "${world}")`);
    return 2;
  }
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-contract-'));
  try {
    return endpoint === undefined ? await againstLocalServers(world === undefined ? Object.keys(WORLDS) : [world], workDir) : await againstEndpoint(endpoint, token, workDir);
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
