import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { listReleases } from '../../contract/compat/releases.js';
import { formatVersion } from '../../contract/compat/semver.js';
import { generateBatch } from '../../scripts/openapi-generator.js';
import { OidcProvider } from '../helpers/oidc-provider.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSignInServer, type SignInServer } from '../helpers/sign-in.js';
import { ADDED_MEMBER, startAddingProxy, type AddingProxy } from './adding-proxy.js';
import { languages, runCommand, type ScenarioLanguage } from './scenario-languages.js';

// Integrators' clients in four languages: OpenAPI Generator, with the generators and options of openapitools.json,
// generates them from today's contract and from the latest release (yesterday's clients) in one JVM; each is
// compiled (the python package also type-checked on its own) and runs one scenario (test/client/scenarios/<language>/)
// through its generated classes against servers this test starts, once without and once with sign-in.
// docs/clients.md says how an integrator does the same; docs/versioning.md what the runs of yesterday's clients showed.

const root = process.cwd();
const TENANT = 'kantonsspital';
const REPORT_KEY = 'monthly_controlling_2026_10';

/** The steps every scenario reports, in this order (`ok <step>`). */
const STEPS = [
  'getHealth', 'getJumpbar tenants', 'getJumpbar search', 'getJumpbar summary', 'createView', 'listViews', 'updateView',
  'deleteView', 'addNotebookCell', 'addDiscussionReply', 'createNote', 'addToNote', 'exportDimension', 'getTenantLogo',
  'getReport', 'getPipelineGraphHtml', 'getOpenApiYaml',
];
/**
 * The steps a release's clients cannot take, by release, with why: their scenario (a `release-<version>/` file)
 * leaves them out, and the test asserts that it does.
 */
const STEPS_A_RELEASE_LACKS: Record<string, Record<string, string>> = {
  // getPipelineArtifact's media type follows artifact_key: typescript-fetch parses the HTML as JSON, python as a
  // PipelineGraph, java as a Map, go has no type for it (docs/versioning.md)
  '0.3.0': { getPipelineGraphHtml: 'the operation came with 0.4.0' },
};
/** The problems every scenario provokes and reads (`problem <operation> <JSON>`), with the request that gets each. */
const PROBLEMS = [
  { operation: 'listViews', status: 404, url: '/api/views?tenant=no-such-tenant' },
  { operation: 'getJumpbar', status: 400, url: `/api/jumpbar?mode=search&tenant=${TENANT}` },
];

/**
 * What a client generated from a release is measured to fail at, by release and language (docs/versioning.md):
 * the test asserts that failure instead of the scenario, so that a change in it shows.
 */
const KNOWN_FAILURES: Record<string, Partial<Record<ScenarioLanguage['name'], { at: string; output: RegExp }>>> = {
  // a description holds an asterisk followed by a slash, which closes the block comment the go generator writes it in
  '0.3.0': { go: { at: 'does not compile: a description closes a Go block comment', output: /api_content\.go:\d+:\d+: syntax error/ } },
};

/**
 * Where a release's client, compiled with its scenario, does not type-check on its own (ScenarioLanguage.checkClient),
 * by release and language: the test asserts that failure, so that a change in it shows.
 */
const CLIENT_CHECK_FAILURES: Record<string, Partial<Record<ScenarioLanguage['name'], { at: string; output: RegExp }>>> = {
  // the generator's to_dict of a oneOf whose member is an anyOf (CellInput holding ViewCellInput) returns the
  // member's own union; 0.4.0 writes ViewCellInput without the anyOf
  '0.3.0': { python: { at: 'CellInput.to_dict', output: /models\/cell_input\.py:\d+: error: Incompatible return value type .*\[return-value\]/ } },
};

/**
 * What today's clients do with answers that hold a member their contract does not know (a proxy adds one to every
 * JSON object, as a later minor version may), generated with the options of openapitools.json: null where the
 * scenario passes, else the failure it ends with (docs/versioning.md, "Generated clients per generator").
 */
const WITH_ADDED_MEMBER: Record<ScenarioLanguage['name'], RegExp | null> = {
  typescript: null,
  python: null,
  java: new RegExp(`^FAIL java getHealth: .*The field \`${ADDED_MEMBER}\` in the JSON string is not defined`, 'm'),
  go: new RegExp(`^FAIL go getHealth: HTTP 200 .*"${ADDED_MEMBER}".*\\(data failed to match schemas in oneOf\\(Health\\)`, 'm'),
};
const ADDING = 'without sign-in, through a proxy that adds a member to every answer';

/** A contract the clients are generated from, and the folder its clients and scenarios are laid out in. */
interface Contract {
  label: string;
  release?: string;
  inputSpec: string;
  work: string;
}

const latest = listReleases(root).at(-1);
const contracts: Contract[] = [
  { label: 'openapi.yaml', inputSpec: 'openapi.yaml', work: path.join(root, 'build', 'openapi-generator', 'current') },
  ...(latest === undefined ? [] : [{
    label: `release ${formatVersion(latest.version)} (yesterday's clients)`,
    release: formatVersion(latest.version),
    inputSpec: path.relative(root, latest.file),
    work: path.join(root, 'build', 'openapi-generator', formatVersion(latest.version)),
  }]),
];

/**
 * Copies the scenarios beside the contract's clients. A scenario folder's `release-<version>/` holds the files that
 * take the place of their namesakes for the client of that release (a step whose parameter the release lacks);
 * those folders are not copied.
 */
function layScenarios(contract: Contract): void {
  const target = path.join(contract.work, 'scenarios');
  fs.rmSync(target, { recursive: true, force: true });
  for (const language of languages) {
    const source = path.join(root, 'test', 'client', 'scenarios', language.name);
    const folder = path.join(target, language.name);
    fs.cpSync(source, folder, { recursive: true, filter: (file) => !path.basename(file).startsWith('release-') });
    const overlay = path.join(source, `release-${contract.release}`);
    if (contract.release !== undefined && fs.existsSync(overlay)) fs.cpSync(overlay, folder, { recursive: true });
  }
}

/** A server the scenarios run against, with the token they send (none without sign-in) and what it serves. */
interface Target {
  mode: string;
  url: string;
  token: string;
  /** The files holding the bytes of the logo, the report, the HTML graph and the YAML contract. */
  files: { logo: string; report: string; graph: string; contract: string };
  /** The tenant's finding amount (`SeveritySummary.money`) as the server writes it in JSON. */
  money: string;
}

async function served(target: Pick<Target, 'mode' | 'url' | 'token'>, url: string): Promise<Buffer> {
  const response = await fetch(`${target.url}${url}`, { headers: target.token === '' ? {} : { authorization: `Bearer ${target.token}` } });
  expect(response.status, `${target.mode}: GET ${url}`).to.equal(200);
  return Buffer.from(await response.arrayBuffer());
}

async function bytesFile(target: Pick<Target, 'mode' | 'url' | 'token'>, url: string, file: string): Promise<string> {
  fs.writeFileSync(file, await served(target, url));
  return file;
}

/**
 * The amount the scenarios must read to the cent, as written on the wire (`"money":3474077.39`): one a 32-bit float
 * cannot hold, so that a client reading it into one fails the step.
 */
async function moneyOf(target: Pick<Target, 'mode' | 'url' | 'token'>): Promise<string> {
  const json = (await served(target, `/api/jumpbar?mode=summary&tenant=${TENANT}`)).toString('utf8');
  const written = /"money":(-?\d+(?:\.\d+)?)[,}]/.exec(json)?.[1];
  expect(written, `${target.mode}: the summary's money in ${json}`).to.be.a('string');
  expect(Math.fround(Number(written)), `${target.mode}: ${written} is held by a 32-bit float`).not.to.equal(Number(written));
  return written!;
}

async function targetOf(mode: string, url: string, token: string, dir: string): Promise<Target> {
  const target = { mode, url, token };
  fs.mkdirSync(dir, { recursive: true });
  const logo = await bytesFile(target, `/api/logo/${TENANT}`, path.join(dir, 'logo.bin'));
  const report = await bytesFile(target, `/api/reports/${TENANT}/${REPORT_KEY}`, path.join(dir, 'report.bin'));
  const graph = await bytesFile(target, `/api/pipeline/${TENANT}/graph_html`, path.join(dir, 'graph.html'));
  const contract = await bytesFile(target, '/openapi.yaml', path.join(dir, 'openapi.yaml'));
  return { ...target, files: { logo, report, graph, contract }, money: await moneyOf(target) };
}

/** Runs a compiled scenario against `target`; what it printed, and its exit status. */
async function runScenario(language: ScenarioLanguage, contract: Contract, target: Target, token = target.token) {
  const { command, args, env } = language.command(contract.work);
  return runCommand(command, args, {
    cwd: path.join(contract.work, 'scenarios', language.name),
    env: {
      ...env,
      DESK_URL: target.url,
      DESK_TOKEN: token,
      DESK_TENANT: TENANT,
      DESK_REPORT_KEY: REPORT_KEY,
      DESK_LOGO_FILE: target.files.logo,
      DESK_REPORT_FILE: target.files.report,
      DESK_GRAPH_FILE: target.files.graph,
      DESK_CONTRACT_FILE: target.files.contract,
      DESK_MONEY: target.money,
    },
  });
}

/** The scenario passed: every step in order, and each problem as the server itself answers it. */
async function expectScenarioPassed(language: ScenarioLanguage, contract: Contract, target: Target): Promise<void> {
  const label = `${language.name} (${contract.label}, ${target.mode})`;
  const run = await runScenario(language, contract, target);
  expect(run.status, `${label} failed:\n${run.output}`).to.equal(0);
  const lines = run.output.split('\n');
  const steps = lines.filter((line) => line.startsWith('ok ')).map((line) => line.slice(3));
  const lacking = contract.release === undefined ? {} : (STEPS_A_RELEASE_LACKS[contract.release] ?? {});
  expect(steps, `${label}: the steps reported`).to.deep.equal(STEPS.filter((step) => !(step in lacking)));
  const problems = lines.filter((line) => line.startsWith('problem '));
  expect(problems.map((line) => line.split(' ')[1]), `${label}: the problems read`).to.deep.equal(PROBLEMS.map((p) => p.operation));
  for (const [i, expected] of PROBLEMS.entries()) {
    const read = JSON.parse(problems[i]!.split(' ').slice(2).join(' '));
    const response = await fetch(`${target.url}${expected.url}`, { headers: target.token === '' ? {} : { authorization: `Bearer ${target.token}` } });
    const served = (await response.json()) as { type: string; title: string; status: number; detail: string };
    expect(response.status).to.equal(expected.status);
    expect(read, `${label}: ${expected.operation}'s problem as read through the client`).to.deep.equal({
      type: served.type, title: served.title, status: served.status, detail: served.detail,
    });
  }
}

describe('clients generated by OpenAPI Generator (openapitools.json) run a scenario in four languages', function () {
  // a machine without the caches first downloads Maven, pip and Go dependencies
  this.timeout(10 * 60_000);
  let provider: OidcProvider;
  let plain: TestServer;
  let signedIn: SignInServer;
  let proxy: AddingProxy;
  const targets: Target[] = [];
  let generated: Record<string, string>[] = [];

  before(async () => {
    const batch = generateBatch(contracts.map((contract) => ({ inputSpec: contract.inputSpec, outputRoot: path.join(contract.work, 'clients') })));
    generated = batch.folders;
    for (const contract of contracts) layScenarios(contract);
    provider = await OidcProvider.start();
    plain = await startTestServer({ env: { GITHUB_API_URL: 'http://127.0.0.1:9' } });
    signedIn = await startSignInServer(provider);
    const expected = path.join(root, 'build', 'openapi-generator', 'served');
    targets.push(await targetOf('without sign-in', plain.url, '', path.join(expected, 'plain')));
    targets.push(await targetOf('with sign-in', signedIn.url, await provider.token(), path.join(expected, 'signed-in')));
    proxy = await startAddingProxy(plain.url);
    targets.push({ ...targets[0]!, mode: ADDING, url: proxy.url });
  });
  after(async () => {
    await proxy?.close();
    await plain?.close();
    await signedIn?.close();
    await provider?.close();
  });

  for (const [n, contract] of contracts.entries()) {
    describe(contract.label, () => {
      for (const language of languages) {
        describe(language.name, () => {
          let compiled = false;
          const known = contract.release === undefined ? undefined : KNOWN_FAILURES[contract.release]?.[language.name];

          it(`generated (${language.generator})`, () => {
            const folder = generated[n]?.[language.generator];
            expect(folder, `${language.name}: openapitools.json has the generator ${language.generator}`).to.be.a('string');
            expect(fs.readdirSync(folder!).length, `${language.name}: files in ${path.relative(root, folder!)}`).to.be.greaterThan(3);
          });

          if (known !== undefined) {
            it(`${known.at} (measured)`, async () => {
              const failure = await language.compile(contract.work).then(() => null, (error: Error) => error.message);
              expect(failure, `${language.name} (${contract.label}) compiled; remove its entry from KNOWN_FAILURES`).to.be.a('string');
              expect(failure).to.match(known.output);
            });
            return;
          }

          it(`compiled (${language.compiler})`, async () => {
            await language.compile(contract.work);
            compiled = true;
          });

          if (language.checkClient !== undefined) {
            const checkClient = language.checkClient.bind(language);
            const failure = contract.release === undefined ? undefined : CLIENT_CHECK_FAILURES[contract.release]?.[language.name];
            if (failure === undefined) {
              it(`client type-checks on its own (${language.clientChecker})`, () => checkClient(contract.work));
            } else {
              it(`client does not type-check on its own: ${failure.at} (measured)`, async () => {
                const output = await checkClient(contract.work).then(() => null, (error: Error) => error.message);
                expect(output, `${language.name} (${contract.label}) type-checks; remove its entry from CLIENT_CHECK_FAILURES`).to.be.a('string');
                expect(output).to.match(failure.output);
              });
            }
          }

          for (const mode of ['without sign-in', 'with sign-in']) {
            it(`scenario passed ${mode}`, async () => {
              expect(compiled, `${language.name}: compiled`).to.equal(true);
              await expectScenarioPassed(language, contract, targets.find((target) => target.mode === mode)!);
            });
          }

          if (n === 0) {
            const addedMemberFailure = WITH_ADDED_MEMBER[language.name];
            it(addedMemberFailure === null ? `scenario passed ${ADDING}` : `fails ${ADDING} (measured)`, async () => {
              expect(compiled, `${language.name}: compiled`).to.equal(true);
              const adding = targets.find((target) => target.mode === ADDING)!;
              if (addedMemberFailure === null) return expectScenarioPassed(language, contract, adding);
              const run = await runScenario(language, contract, adding);
              expect(run.status, `${language.name} passed ${ADDING}; update WITH_ADDED_MEMBER and docs/versioning.md`).to.equal(1);
              expect(run.output).to.match(addedMemberFailure);
            });

            it('fails naming the language, the operation and the answer (with sign-in, no token sent)', async () => {
              expect(compiled, `${language.name}: compiled`).to.equal(true);
              const run = await runScenario(language, contract, targets.find((target) => target.mode === 'with sign-in')!, '');
              expect(run.status).to.equal(1);
              expect(run.output).to.match(new RegExp(`^FAIL ${language.name} getJumpbar: HTTP 401 .*"status":\\s?401`, 'm'));
            });
          }
        });
      }
    });
  }
});
