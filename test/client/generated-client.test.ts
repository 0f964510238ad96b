import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { contractExamples, type OperationExample } from '../helpers/contract-examples.js';
import { contractOperations, type ContractOperation } from '../helpers/contract.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { generatorArguments, runPackageBin } from './generator.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { startSignInServer, type SignInServer } from '../helpers/sign-in.js';

// The client is generated per run into a temporary folder laid out like the repository (build/client beside
// examples/client), so that examples/client compiles and runs there unchanged. Its types exist only after
// generation, so this file reaches the typed usage through the interfaces below, and `tsc` checks the usage itself.

/** Where the typed usage sends its requests (examples/client/desk-client.ts `Target`). */
interface Target {
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
}

/** What the files of examples/client export. */
interface TypedUsage {
  callEveryOperation(target: Target, examples: Record<string, OperationExample>): Promise<void>;
  checkBearerToken(target: Target & { token: string }): Promise<{ name: string | null; roles: string[] }>;
  savedViewNames(baseUrl: string, accessToken: string): Promise<{ health: string; views: string[] }>;
}

/** One request the generated client sent, as it went over the wire. */
interface Exchange {
  method: string;
  pathname: string;
  status: number;
  authorization: string | null;
}

const ANTHROPIC_KEY = 'sk-ant-test-client-0815';
const root = process.cwd();
const operations = contractOperations();

/** A fetch that records every exchange of the generated client. */
function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const response = await fetch(request);
    const url = new URL(request.url);
    exchanges.push({ method: request.method, pathname: url.pathname, status: response.status, authorization: request.headers.get('authorization') });
    return response;
  };
}

/** The operation of the contract a request went to: method and path template, the most literal segments winning. */
function operationOf(method: string, pathname: string): ContractOperation | undefined {
  const segments = pathname.split('/').map((segment) => decodeURIComponent(segment));
  let found: ContractOperation | undefined;
  let foundLiterals = -1;
  for (const op of operations) {
    const template = op.path.split('/');
    if (op.method !== method || template.length !== segments.length) continue;
    if (!template.every((part, i) => /^\{.+\}$/.test(part) || part === segments[i])) continue;
    const literals = template.filter((part) => !/^\{.+\}$/.test(part)).length;
    if (literals > foundLiterals) [found, foundLiterals] = [op, literals];
  }
  return found;
}

/** Every exchange answered 2xx with a status its operation declares, and every operation of the contract was called. */
function expectEveryOperationAnswered(exchanges: Exchange[]): ContractOperation[] {
  const called = new Map<string, ContractOperation>();
  for (const exchange of exchanges) {
    const label = `${exchange.method} ${exchange.pathname} answered ${exchange.status}`;
    const op = operationOf(exchange.method, exchange.pathname);
    expect(op, `${label}: no operation of the contract`).to.not.equal(undefined);
    expect(op!.statuses, `${op!.operationId}: ${label}, not declared`).to.include(String(exchange.status));
    expect(exchange.status, `${op!.operationId}: ${label}`).to.not.be.oneOf([500, 501]);
    expect(exchange.status, `${op!.operationId}: ${label}`).to.be.within(200, 299);
    called.set(op!.operationId, op!);
  }
  const missing = operations.map((op) => op.operationId).filter((operationId) => !called.has(operationId));
  expect(missing, 'operations of openapi.yaml the generated client did not call').to.deep.equal([]);
  return [...called.values()];
}

describe('a client generated from openapi.yaml by @hey-api/openapi-ts (fetch client)', function () {
  this.timeout(60_000);
  let work: { dir: string; remove: () => void };
  let anthropic: FakeAnthropic;
  let generated = false;
  const examples = contractExamples(root);
  const serverEnv = (): Record<string, string> => ({
    // drift must not reach the internet: a closed loopback port gives fetch_error (a 200)
    GITHUB_API_URL: 'http://127.0.0.1:9',
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: anthropic.url,
    NARRATIVE_MODEL: 'claude-test-model',
  });

  /** The typed usage, loaded from the temporary copy next to the generated client. */
  async function typedUsage(): Promise<TypedUsage> {
    expect(generated, 'the client was generated').to.equal(true);
    const load = (file: string) => import(pathToFileURL(path.join(work.dir, 'examples', 'client', file)).href);
    return { ...(await load('every-operation.ts')), ...(await load('sign-in.ts')), ...(await load('quick-start.ts')) } as TypedUsage;
  }

  before(async () => {
    work = tempDir('ads-generated-client-');
    // as in the repository: the package is an ES module package, so the copies are ES modules too
    fs.writeFileSync(path.join(work.dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
    fs.cpSync(path.join(root, 'examples', 'client'), path.join(work.dir, 'examples', 'client'), { recursive: true });
    anthropic = await startFakeAnthropic(ANTHROPIC_KEY);
  });
  after(async () => {
    await anthropic?.close();
    work?.remove();
  });

  it('is generated by the command of npm run generate:client', () => {
    const output = path.join(work.dir, 'build', 'client');
    const run = runPackageBin('@hey-api/openapi-ts', 'bin/run.js', [...generatorArguments(output), '--no-log-file']);
    expect(run.status, `openapi-ts failed:\n${run.output}`).to.equal(0);
    for (const file of ['index.ts', 'sdk.gen.ts', 'types.gen.ts', 'client/index.ts']) {
      expect(fs.existsSync(path.join(output, file)), `generated ${file}`).to.equal(true);
    }
    generated = true;
  });

  it('compiles with the typed usage in examples/client (strict, DOM library, no Node types)', () => {
    expect(generated, 'the client was generated').to.equal(true);
    const run = runPackageBin('typescript', 'bin/tsc', ['-p', path.join(work.dir, 'examples', 'client', 'tsconfig.json'), '--pretty', 'false']);
    expect(run.status, `tsc found errors:\n${run.output}`).to.equal(0);
  });

  it('has one SDK function per operation of the contract, named by its operationId', async () => {
    expect(generated, 'the client was generated').to.equal(true);
    const sdk: Record<string, unknown> = await import(pathToFileURL(path.join(work.dir, 'build', 'client', 'index.ts')).href);
    const functions = Object.keys(sdk).filter((name) => typeof sdk[name] === 'function');
    expect(functions.sort()).to.deep.equal(operations.map((op) => op.operationId).sort());
  });

  describe('against the server without sign-in', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ env: serverEnv() });
    });
    after(async () => server?.close());

    it('calls every operation with its contract example and gets the answers the generated types describe', async () => {
      const usage = await typedUsage();
      const exchanges: Exchange[] = [];
      await usage.callEveryOperation({ baseUrl: server.url, fetch: recordingFetch(exchanges) }, examples);
      expectEveryOperationAnswered(exchanges);
      expect(exchanges.filter((exchange) => exchange.authorization !== null), 'requests with a token').to.deep.equal([]);
    });
  });

  describe('against the server with sign-in (AUTH_MODE=oidc)', () => {
    let provider: OidcProvider;
    let server: SignInServer;
    let token: string;
    before(async () => {
      provider = await OidcProvider.start();
      server = await startSignInServer(provider, serverEnv());
      token = await provider.token();
    });
    after(async () => {
      await server?.close();
      await provider?.close();
    });

    it('calls every operation with its contract example, sending the bearer token to every protected one', async () => {
      const usage = await typedUsage();
      const exchanges: Exchange[] = [];
      await usage.callEveryOperation({ baseUrl: server.url, token, fetch: recordingFetch(exchanges) }, examples);
      const called = expectEveryOperationAnswered(exchanges);
      const protectedIds = new Set(called.filter((op) => op.role !== null).map((op) => op.operationId));
      for (const exchange of exchanges) {
        const op = operationOf(exchange.method, exchange.pathname)!;
        if (protectedIds.has(op.operationId)) expect(exchange.authorization, op.operationId).to.equal(`Bearer ${token}`);
      }
    });

    it('answers 401 typed as Problem without the token, and the caller the token names with it', async () => {
      const usage = await typedUsage();
      const exchanges: Exchange[] = [];
      const caller = await usage.checkBearerToken({ baseUrl: server.url, token, fetch: recordingFetch(exchanges) });
      expect(caller.name).to.equal('Anna Muster');
      expect(caller.roles).to.include('admin');
      expect(exchanges.map((exchange) => [exchange.pathname, exchange.status])).to.deep.equal([
        ['/api/identity', 401],
        ['/health', 200],
        ['/api/identity', 200],
      ]);
    });

    it('runs the quick-start example of docs/clients.md (base URL, bearer token, two calls)', async () => {
      const usage = await typedUsage();
      const answer = await usage.savedViewNames(server.url, token);
      expect(answer.health).to.equal('ok');
      expect(answer.views).to.be.an('array');
    });
  });
});
