import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { layWork, otherGenerators, pythonClientWithoutOverrides, type OtherGenerator } from './other-generators.js';
import { runCommand } from './scenario-languages.js';

// The generators integrators pick besides OpenAPI Generator (test/client/other-generators.ts): each generates its
// client from today's contract as its README shows, with the options docs/clients.md names; the client and the
// scenario (test/client/scenarios/<generator>/) are built and type-checked with the language's own tools, and the
// scenario runs against a server this test starts.

const root = process.cwd();
const TENANT = 'kantonsspital';
/** A slug two packs of the demo data hold: every tenant operation answers it 409. */
const AMBIGUOUS_TENANT = 'rehaklinik';
const REPORT_KEY = 'monthly_controlling_2026_10';

/** The steps every scenario reports, in this order (`ok <step>`). */
const STEPS = [
  'getHealth', 'getJumpbar tenants', 'getJumpbar search', 'getJumpbar summary', 'listViews 409', 'createView', 'updateView',
  'updateView 412', 'deleteView', 'addNotebookCell', 'updateNotebookCell', 'updateNotebookCell 412', 'exportDimension filter',
  'exportDimension filters', 'getPipelineGraphHtml', 'getOpenApiYaml', 'getTenantLogo', 'getReport',
];

/** The problems every scenario reads (`problem <operation> <JSON>`), with the status and type each has. */
const PROBLEMS = [
  { operation: 'listViews', status: 409, type: 'https://analytics-desk.example/problems/ambiguous-tenant' },
  { operation: 'updateView', status: 412, type: 'https://analytics-desk.example/problems/precondition-failed' },
  { operation: 'updateNotebookCell', status: 412, type: 'https://analytics-desk.example/problems/precondition-failed' },
];

/** What the scenarios compare their answers with: files holding the bytes the server serves, and the amount. */
interface Expected {
  logo: string;
  report: string;
  graph: string;
  contract: string;
  money: string;
}

async function served(server: TestServer, url: string, headers: Record<string, string> = {}): Promise<Buffer> {
  const response = await fetch(`${server.url}${url}`, { headers });
  expect(response.status, `GET ${url}`).to.equal(200);
  return Buffer.from(await response.arrayBuffer());
}

async function expectedOf(server: TestServer, dir: string): Promise<Expected> {
  fs.mkdirSync(dir, { recursive: true });
  const file = async (name: string, url: string): Promise<string> => {
    fs.writeFileSync(path.join(dir, name), await served(server, url));
    return path.join(dir, name);
  };
  const summary = (await served(server, `/api/jumpbar?mode=summary&tenant=${TENANT}`)).toString('utf8');
  const money = /"money":(-?\d+(?:\.\d+)?)[,}]/.exec(summary)?.[1];
  expect(money, `the summary's money in ${summary}`).to.be.a('string');
  // an amount a 32-bit float cannot hold, so that a client reading it into one fails the step
  expect(Math.fround(Number(money)), `${money} is held by a 32-bit float`).not.to.equal(Number(money));
  return {
    logo: await file('logo.bin', `/api/logo/${TENANT}`),
    report: await file('report.bin', `/api/reports/${TENANT}/${REPORT_KEY}`),
    graph: await file('graph.html', `/api/pipeline/${TENANT}/graph_html`),
    contract: await file('openapi.yaml', '/openapi.yaml'),
    money: money!,
  };
}

async function runScenario(generator: OtherGenerator, work: string, server: TestServer, expected: Expected) {
  const { command, args, env } = generator.command(work);
  return runCommand(command, args, {
    cwd: work,
    env: {
      ...env,
      DESK_URL: server.url,
      DESK_TOKEN: '',
      DESK_TENANT: TENANT,
      DESK_AMBIGUOUS_TENANT: AMBIGUOUS_TENANT,
      DESK_REPORT_KEY: REPORT_KEY,
      DESK_LOGO_FILE: expected.logo,
      DESK_REPORT_FILE: expected.report,
      DESK_GRAPH_FILE: expected.graph,
      DESK_CONTRACT_FILE: expected.contract,
      DESK_MONEY: expected.money,
    },
  });
}

describe('clients of oapi-codegen, openapi-typescript with openapi-fetch and openapi-python-client run a scenario', function () {
  // a machine without the caches first downloads the generators and their dependencies
  this.timeout(10 * 60_000);
  let server: TestServer;
  let expected: Expected;

  before(async () => {
    server = await startTestServer({ env: { GITHUB_API_URL: 'http://127.0.0.1:9' } });
    expected = await expectedOf(server, path.join(root, 'build', 'other-generators', 'served'));
  });
  after(async () => {
    await server?.close();
  });

  for (const generator of otherGenerators) {
    describe(generator.name, () => {
      let work = '';
      let generated = false;
      let checked = false;

      it(`generates the client (${generator.generator})`, async () => {
        work = layWork(generator);
        await generator.generate(work);
        generated = true;
      });

      it(`builds and type-checks the client and the scenario (${generator.checker})`, async () => {
        expect(generated, `${generator.name}: generated`).to.equal(true);
        await generator.check(work);
        checked = true;
      });

      it('runs the scenario: every step, the 409 and both 412 read as typed problems', async () => {
        expect(checked, `${generator.name}: checked`).to.equal(true);
        const run = await runScenario(generator, work, server, expected);
        expect(run.status, `${generator.name} failed:\n${run.output}`).to.equal(0);
        const lines = run.output.split('\n');
        expect(lines.filter((line) => line.startsWith('ok ')).map((line) => line.slice(3)), `${generator.name}: the steps`).to.deep.equal(STEPS);
        const problems = lines.filter((line) => line.startsWith('problem '));
        expect(problems.map((line) => line.split(' ')[1]), `${generator.name}: the problems read`).to.deep.equal(PROBLEMS.map((p) => p.operation));
        for (const [i, problem] of PROBLEMS.entries()) {
          const read = JSON.parse(problems[i]!.split(' ').slice(2).join(' ')) as Record<string, unknown>;
          expect(read, `${generator.name}: ${problem.operation}'s problem`).to.include({ status: problem.status, type: problem.type });
          expect(read['title'], `${generator.name}: ${problem.operation}'s problem`).to.be.a('string').and.not.equal('');
          expect(read['detail'], `${generator.name}: ${problem.operation}'s problem`).to.be.a('string').and.not.equal('');
        }
        // the 409 as the server itself answers it
        const ambiguous = (await (await fetch(`${server.url}/api/views?tenant=${AMBIGUOUS_TENANT}`)).json()) as Record<string, unknown>;
        const read = JSON.parse(problems[0]!.split(' ').slice(2).join(' ')) as Record<string, unknown>;
        expect(read).to.deep.equal({ type: ambiguous['type'], title: ambiguous['title'], status: ambiguous['status'], detail: ambiguous['detail'] });
      });

      if (generator.name === 'openapi-python-client') {
        it('leaves out the logo and the report answers without content_type_overrides (measured)', async () => {
          expect(generated, `${generator.name}: generated`).to.equal(true);
          const output = await pythonClientWithoutOverrides(work);
          expect(output).to.match(/Unsupported content_type image\/png, image\/svg\+xml, image\/jpeg, image\/webp\), response will be omitted/);
          expect(output).to.match(/Unsupported content_type application\/pdf\), response will be omitted/);
        });
      }
    });
  }
});
