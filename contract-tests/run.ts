// `npm run test:contract`: generates demo data, starts the real server on a free port, runs Dredd against it
// with contract-tests/hooks.cjs, stops the server, and prints one closing line `contract: N passed, N failed`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { NOT_IMPLEMENTED, NOT_IMPLEMENTED_MODES } from '../src/http/not-implemented.js';
import { startFakeAnthropic } from '../test/helpers/fake-anthropic.js';
import { demoRepoBehaviours, startFakeGitHub } from '../test/helpers/fake-github.js';
import { freePort } from '../test/helpers/ports.js';

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
  const gitConfig = path.join(dataDir, 'gitconfig');
  fs.writeFileSync(gitConfig, '[user]\n\tname = Contract Tester\n\temail = contract@example.org\n');

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env, PORT: String(port), DATA_DIR: dataDir, KLS_DIR: klsDir, LOG_LEVEL: 'error', GIT_CONFIG_GLOBAL: gitConfig,
      GITHUB_API_URL: github.url, GITHUB_TOKEN: '', ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: anthropicKey,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
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
    console.log(`contract: ${passing} passed, ${failing! + errors!} failed, ${skippedCount} skipped`);
    return code !== 0 || failing! + errors! > 0 || passing === 0 ? 1 : 0;
  } finally {
    server.kill('SIGTERM');
    await exited;
    await Promise.all([github.close(), anthropic.close()]);
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
