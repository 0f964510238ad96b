// `npm run test:contract`: generates demo data, starts a local OpenID provider and the real server with sign-in
// (AUTH_MODE=oidc) on free ports, runs Dredd against it with contract-tests/hooks.cjs (which get bearer tokens
// of that provider), stops the server, and prints one closing line `contract: N passed, N failed`. The server's
// log goes to a file, printed when Dredd fails. Without sign-in the same operations are checked by mocha.

import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { NOT_IMPLEMENTED, NOT_IMPLEMENTED_MODES } from '../src/http/not-implemented.js';
import { startFakeAnthropic } from '../test/helpers/fake-anthropic.js';
import { demoRepoBehaviours, startFakeGitHub } from '../test/helpers/fake-github.js';
import { OidcProvider } from '../test/helpers/oidc-provider.js';
import { freePort } from '../test/helpers/ports.js';
import { startPostgres, type TestPostgres } from '../test/helpers/postgres.js';

const root = path.resolve(import.meta.dirname, '..');


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

/** `POST /app-db/stop` and `/app-db/start` on loopback: the hooks' way to take the app database away and back. */
async function startControl(postgres: TestPostgres): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const action = req.method === 'POST' ? { '/app-db/stop': () => postgres.stop(), '/app-db/start': () => postgres.start() }[req.url ?? ''] : undefined;
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

async function main(): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-contract-'));
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

  // The app database is PostgreSQL, as several instances run it; the hooks stop and start it through a control
  // server to see every collaboration operation answer 503 while it is down (and the server recover without restart).
  const postgres = await startPostgres();
  const appDbUrl = await postgres.createDatabase('contract');
  const control = await startControl(postgres);
  const provider = await OidcProvider.start();
  const tokens = {
    admin: await provider.token({ sub: 'dredd-admin', name: 'Contract Tester', roles: ['admin'], tenants: ['*'] }, { expiresIn: 3600 }),
    noRole: await provider.token({ sub: 'dredd-no-role', roles: ['auditor'], tenants: ['*'] }, { expiresIn: 3600 }),
    // one subject per limited operation, so that spending its limit leaves every other transaction alone
    limited: Object.fromEntries(
      await Promise.all(
        ['createNarrative', 'exportDimension', 'validateSignalDefinition', 'compileSignalDefinition'].map(async (op) => [
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
      AUTH_MODE: 'oidc', OIDC_ISSUER: provider.issuer, OIDC_AUDIENCE: provider.audience, APP_DB_URL: appDbUrl,
    },
    stdio: ['ignore', logFd, logFd],
  });
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  try {
    await waitForHealth(url, Date.now() + 60_000);
    // dredd.yml holds the settings; the endpoint of this run is added to a copy of it.
    const config = path.join(dataDir, 'dredd.yml');
    fs.writeFileSync(config, `${fs.readFileSync(path.join(root, 'contract-tests/dredd.yml'), 'utf8')}endpoint: '${url}'\n`);
    const dredd = spawn(process.execPath, [path.join(root, 'node_modules/dredd/bin/dredd'), '--config', config], {
      cwd: root,
      env: {
        ...process.env,
        NOT_IMPLEMENTED_OPS: JSON.stringify(NOT_IMPLEMENTED),
        NOT_IMPLEMENTED_MODES: JSON.stringify(NOT_IMPLEMENTED_MODES),
        CONTRACT_DATA_DIR: dataDir,
        CONTRACT_KLS_DIR: klsDir,
        CONTRACT_FAKE_ANTHROPIC_URL: anthropic.url,
        CONTRACT_TOKENS: JSON.stringify(tokens),
        CONTRACT_CONTROL_URL: control.url,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    dredd.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    });
    const code = await new Promise<number>((resolve) => dredd.once('exit', (c) => resolve(c ?? 1)));
    const summary = /complete: (\d+) passing, (\d+) failing, (\d+) errors, (\d+) skipped, (\d+) total/.exec(output);
    if (summary === null) {
      console.log('contract: 0 passed, 1 failed (Dredd printed no summary)');
      return 1;
    }
    const [, passing, failing, errors, skippedCount] = summary.map(Number);
    const failed = code !== 0 || failing! + errors! > 0 || passing === 0;
    if (failed) console.log(`server log (last 60 lines):\n${fs.readFileSync(serverLog, 'utf8').split('\n').slice(-60).join('\n')}`);
    console.log(`contract: ${passing} passed, ${failing! + errors!} failed, ${skippedCount} skipped`);
    return failed ? 1 : 0;
  } finally {
    server.kill('SIGTERM');
    await exited;
    fs.closeSync(logFd);
    await Promise.all([github.close(), anthropic.close(), provider.close(), control.close()]);
    await postgres.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
