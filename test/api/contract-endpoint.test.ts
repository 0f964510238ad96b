import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSignInServer, type SignInServer } from '../helpers/sign-in.js';

/** `npm run test:contract -- <args>` as a child process: its exit code and output. */
function runContractTests(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'contract-tests/run.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

/** The end of `output` for a failure message, each run of one character over 64 long shown as its count (a 1 MiB body Dredd prints). */
const tail = (output: string): string => output.replace(/(.)\1{64,}/gs, (run: string, char: string) => `${char}…(${run.length} times)`).slice(-6000);

/** `contract: N passed, N failed, N skipped`, parsed. */
function closingLine(output: string): { passed: number; failed: number; skipped: number } {
  const match = /^contract: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(output);
  expect(match, tail(output)).not.to.equal(null);
  const [, passed, failed, skipped] = match!.map(Number) as [number, number, number, number];
  return { passed, failed, skipped };
}

// The contract tests QA runs against a server they deploy: here, the real server started with sign-in.
describe('npm run test:contract -- --endpoint <url> --token <jwt>', function () {
  this.timeout(180_000);
  let provider: OidcProvider;
  let server: SignInServer;
  before(async () => {
    provider = await OidcProvider.start();
    server = await startSignInServer(provider);
  });
  after(async () => {
    await server.close();
    await provider.close();
  });

  it('checks a running server through its API only, lists every skipped transaction with its reason, and exits 0', async () => {
    const token = await provider.token({ sub: 'qa-pipeline', roles: ['admin'], tenants: ['*'] }, { expiresIn: 3600 });
    const { code, output } = await runContractTests(['--endpoint', server.url, '--token', token]);
    const counts = closingLine(output);
    expect(code, tail(output)).to.equal(0);
    expect(counts.failed).to.equal(0);
    expect(counts.passed).to.be.greaterThan(200);
    // every skipped transaction is named, with why
    const listed = output.split('\n').filter((line) => /^ {2}\/.* > \d{3} > .+: .+/.test(line));
    expect(listed).to.have.length(counts.skipped);
    expect(listed.some((line) => /needs a tenant whose file cannot be opened/.test(line))).to.equal(true);
    expect(listed.some((line) => /needs a second token, one without roles/.test(line))).to.equal(true);
    // the 401 transactions ran: they are not among the skipped
    expect(listed.filter((line) => / > 401 > /.test(line))).to.deep.equal([]);
  });

  it('stops with a clear message when the server asks for a token and none is given, or refuses it', async () => {
    const missing = await runContractTests(['--endpoint', server.url], { CONTRACT_TOKEN: '' });
    expect(missing.code).to.equal(2);
    expect(missing.output).to.match(/asks for a bearer token: pass --token/);
    const expired = await provider.token({}, { expiresIn: -3600 });
    const refused = await runContractTests([`--endpoint=${server.url}`, `--token=${expired}`]);
    expect(refused.code).to.equal(2);
    expect(refused.output).to.match(/refuses the token: 401 the token has expired/);
    expect(refused.output).not.to.include(expired);
  });
});

// What QA meets against a plain `npm start`: the demo data, no sign-in, the app database on SQLite.
describe('npm run test:contract -- --endpoint <url> against a server without sign-in on SQLite', function () {
  this.timeout(180_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('passes every transaction it can prepare through the API and names why it skips the others', async () => {
    const { code, output } = await runContractTests(['--endpoint', server.url], { CONTRACT_TOKEN: '' });
    const counts = closingLine(output);
    expect(code, tail(output)).to.equal(0);
    expect(counts.failed).to.equal(0);
    expect(counts.passed).to.be.greaterThan(200);
    expect(output).to.include('(no sign-in; Host names checked)');
    const listed = output.split('\n').filter((line) => /^ {2}\/.* > \d{3} > .+: .+/.test(line));
    expect(listed).to.have.length(counts.skipped);
    // the writes of the notebook ran, and their answers carried every header the contract declares
    expect(output).to.match(/^pass: PUT \(200\) \/kantonsspital\/api\/notebook\/cells\//m);
    expect(output).to.match(/^pass: DELETE \(200\) \/kantonsspital\/api\/notebook\/cells\//m);
    expect(listed.filter((line) => / > 401 > /.test(line)).every((line) => /the server asks for no token/.test(line))).to.equal(true);
  });
});
