// The server the contract tests check when no --endpoint is given, with everything around it: demo data plus
// tenants that provoke the rarer statuses, local fakes of GitHub and Anthropic, a local OpenID provider (sign-in
// on: the hooks get its tokens), PostgreSQL or SQLite as app database (the hooks take it away and give it back
// through a control endpoint), and the real server on a free port, logging to a file.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { contractOperations } from '../test/helpers/contract.js';
import { startFakeAnthropic } from '../test/helpers/fake-anthropic.js';
import { demoRepoBehaviours, startFakeGitHub } from '../test/helpers/fake-github.js';
import { OidcProvider } from '../test/helpers/oidc-provider.js';
import { freePort } from '../test/helpers/ports.js';
import { startPostgres } from '../test/helpers/postgres.js';

const root = path.resolve(import.meta.dirname, '..');

/** A running local server for the contract tests, what its hooks need to know, and how to stop it all. */
export interface LocalWorld {
  readonly url: string;
  readonly hookEnv: Record<string, string>;
  /** With sign-in, a token of the roles viewer, editor and admin for every tenant (`*`); null without sign-in. */
  readonly everyRoleToken: string | null;
  /** The last lines of the server's log (printed when Dredd fails). */
  logTail(lines: number): string;
  close(): Promise<void>;
}

/** The app databases the server runs on: `APP_DB_URL` of PostgreSQL, or the default SQLite file in `DATA_DIR`. */
export type AppDatabaseKind = 'postgresql' | 'sqlite';

/**
 * How the local server is started: with sign-in (`AUTH_MODE=oidc`, the default) or without (`AUTH_MODE=none`), on
 * PostgreSQL (the default, as several instances run) or on SQLite (as `npm start` runs).
 */
export interface LocalWorldOptions {
  readonly signIn?: boolean;
  readonly appDatabase?: AppDatabaseKind;
}

/** Builds the local world in `dataDir` (which the caller removes). */
export async function startLocalWorld(dataDir: string, { signIn = true, appDatabase = 'postgresql' }: LocalWorldOptions = {}): Promise<LocalWorld> {
  generateDemo({ out: dataDir });
  const klsDir = path.join(dataDir, 'kls');
  // Drift and narratives call out: local fakes speaking the GitHub and Anthropic wire formats answer them
  // (the demo repositories as fake-github describes; setups/drift-narrative.cjs scripts the Anthropic fake).
  const github = await startFakeGitHub(demoRepoBehaviours(klsDir));
  const anthropicKey = 'sk-ant-contract-test';
  const anthropic = await startFakeAnthropic(anthropicKey);
  // A tenant whose file is not SQLite: requests that need its database answer 503 (hooks use it).
  fs.mkdirSync(path.join(klsDir, 'ost', 'kaputt'), { recursive: true });
  fs.writeFileSync(path.join(klsDir, 'ost', 'kaputt', 'kls.sqlite'), 'not a database\n'.repeat(100));
  // A tenant whose file the hooks delete to see db-status answer 503.
  fs.mkdirSync(path.join(klsDir, 'ost', 'vanishing'), { recursive: true });
  fs.copyFileSync(path.join(klsDir, 'ost', 'kantonsspital', 'kls.sqlite'), path.join(klsDir, 'ost', 'vanishing', 'kls.sqlite'));
  // A tenant with a dimension of 300,000 rows: exports of it that are not read stay running (429 setup).
  addBulkTenant(klsDir);
  const gitConfig = path.join(dataDir, 'gitconfig');
  fs.writeFileSync(gitConfig, '[user]\n\tname = Contract Tester\n\temail = contract@example.org\n');

  // The hooks take the app database away through a control server to see every collaboration operation answer 503
  // (and the server recover without restart): PostgreSQL is stopped; SQLite's write lock is held by another
  // connection, as a second process would hold it, longer than the server's lock timeout.
  const postgres = appDatabase === 'postgresql' ? await startPostgres() : null;
  const appDbEnv: Record<string, string> =
    postgres === null ? { APP_DB_LOCK_TIMEOUT_MS: String(SQLITE_LOCK_TIMEOUT_MS) } : { APP_DB_URL: await postgres.createDatabase('contract') };
  const appDbSwitch: AppDatabaseSwitch = postgres === null ? sqliteLockHolder(path.join(dataDir, 'app.sqlite')) : { stop: () => postgres.stop(), start: () => postgres.start() };
  const control = await startControl(appDbSwitch);
  const provider = await OidcProvider.start();
  const tokens = {
    admin: await provider.token({ sub: 'dredd-admin', name: 'Contract Tester', roles: ['admin'], tenants: ['*'] }, { expiresIn: 3600 }),
    everyRole: await provider.token({ sub: 'fuzz-every-role', name: 'Fuzz Tester', roles: ['viewer', 'editor', 'admin'], tenants: ['*'] }, { expiresIn: 3600 }),
    noRole: await provider.token({ sub: 'dredd-no-role', roles: ['auditor'], tenants: ['*'] }, { expiresIn: 3600 }),
    // one subject per limited operation, so that spending its limit leaves every other transaction alone
    limited: Object.fromEntries(
      await Promise.all(
        contractOperations(root).filter((op) => op.cost !== null).map(async ({ operationId: op }) => [
          op,
          await provider.token({ sub: `dredd-limited-${op}`, roles: ['admin'], tenants: ['*'] }, { expiresIn: 3600 }),
        ]),
      ),
    ),
  };

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const serverLog = path.join(dataDir, 'server.log');
  const logFd = fs.openSync(serverLog, 'a');
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env, PORT: String(port), DATA_DIR: dataDir, KLS_DIR: klsDir, LOG_LEVEL: 'error', GIT_CONFIG_GLOBAL: gitConfig,
      GITHUB_API_URL: github.url, GITHUB_TOKEN: '', ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: anthropicKey,
      ...appDbEnv,
      ...(signIn ? { AUTH_MODE: 'oidc', OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: provider.audience } : { AUTH_MODE: 'none' }),
      // with sign-in, Host names are checked only when listed: loopback names and this one are accepted
      ALLOWED_HOSTS: 'desk.invalid',
    },
    stdio: ['ignore', logFd, logFd],
  });
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  const close = async () => {
    server.kill('SIGTERM');
    await exited;
    fs.closeSync(logFd);
    await Promise.all([github.close(), anthropic.close(), provider.close(), control.close()]);
    if (postgres === null) await appDbSwitch.start();
    else await postgres.close();
  };
  try {
    await waitForHealth(url, Date.now() + 60_000);
  } catch (err) {
    await close();
    throw err;
  }
  return {
    url,
    hookEnv: {
      CONTRACT_MODE: 'local',
      CONTRACT_SIGN_IN: signIn ? 'on' : 'off',
      CONTRACT_HOST_CHECK: 'on',
      CONTRACT_DATA_DIR: dataDir,
      CONTRACT_KLS_DIR: klsDir,
      CONTRACT_FAKE_ANTHROPIC_URL: anthropic.url,
      // without sign-in the transactions carry no token, as a client of such a server sends none
      CONTRACT_TOKENS: JSON.stringify(signIn ? tokens : {}),
      CONTRACT_CONTROL_URL: control.url,
      CONTRACT_APP_DB: appDatabase,
    },
    everyRoleToken: signIn ? tokens.everyRole : null,
    logTail: (lines) => fs.readFileSync(serverLog, 'utf8').split('\n').slice(-lines).join('\n'),
    close,
  };
}

async function waitForHealth(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server at ${url} did not become healthy`);
}

/** Copies a demo tenant to `ost.bulk` and gives it the dimension `bulk` of 300,000 rows (about 25 MB of CSV). */
function addBulkTenant(klsDir: string): void {
  const dir = path.join(klsDir, 'ost', 'bulk');
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(klsDir, 'ost', 'kantonsspital', 'kls.sqlite'), path.join(dir, 'kls.sqlite'));
  const db = new Database(path.join(dir, 'kls.sqlite'));
  try {
    db.exec(`
      CREATE TABLE dim_bulk AS
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
        SELECT i AS bulk_id, printf('bulk row %06d with enough text to make each line of the export about eighty bytes', i) AS label FROM n;
      INSERT INTO dimensions (entity, table_name, label_en, label_de, label_fr) VALUES ('bulk', 'dim_bulk', 'Bulk', 'Masse', 'Masse');
    `);
  } finally {
    db.close();
  }
}

/** How long the server's SQLite waits for a write lock in this world: the 503 transactions wait this long. */
const SQLITE_LOCK_TIMEOUT_MS = 300;

/** Taking the app database away and giving it back. */
interface AppDatabaseSwitch {
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * SQLite's write lock taken by a connection of this process (`BEGIN IMMEDIATE`) and released: the server's writes
 * wait for it and answer 503. Its reads go on (WAL: a reader waits for no writer).
 */
function sqliteLockHolder(file: string): AppDatabaseSwitch {
  let holder: Database.Database | null = null;
  return {
    async stop() {
      if (holder !== null) return;
      holder = new Database(file);
      holder.exec('BEGIN IMMEDIATE');
    },
    async start() {
      if (holder === null) return;
      holder.exec('ROLLBACK');
      holder.close();
      holder = null;
    },
  };
}

/** `POST /app-db/stop` and `/app-db/start` on loopback: the hooks' way to take the app database away and back. */
async function startControl(appDb: AppDatabaseSwitch): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const action = req.method === 'POST' ? { '/app-db/stop': () => appDb.stop(), '/app-db/start': () => appDb.start() }[req.url ?? ''] : undefined;
    if (action === undefined) {
      res.writeHead(404).end();
      return;
    }
    action().then(
      () => res.writeHead(200).end(),
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
