// The client scenario in TypeScript, through the classes OpenAPI Generator's typescript-fetch made from the
// contract: the same steps, in the same order and under the same names, as its siblings in ../python, ../java and
// ../go. test/client/openapi-generator.test.ts copies this folder beside the generated client (../../clients/) and
// runs it with the server, token and expected bytes in the environment:
//   DESK_URL, DESK_TOKEN (empty: no sign-in), DESK_TENANT, DESK_REPORT_KEY, DESK_LOGO_FILE, DESK_REPORT_FILE,
//   DESK_MONEY (the tenant's finding amount as the server writes it), DESK_GRAPH_FILE, DESK_CONTRACT_FILE.
// Each step prints `ok <operation>`; a problem read prints `problem <operation> <JSON>`; the first wrong answer ends
// the run with `FAIL typescript <operation>: <answer>` and exit code 1.
import { readFileSync } from 'node:fs';
import {
  Configuration, ContentApi, DimensionsApi, HealthApi, MetaApi, NotebooksApi, NotesApi, ResponseError, SearchApi,
  ViewsApi, ProblemFromJSON, type Problem,
} from '../../clients/typescript-fetch/dist/index.js';
import { exportWithFilter } from './column-filter.js';
import { readGraphHtml } from './pipeline-graph.js';

class ScenarioFailure extends Error {}

function check(condition: boolean, operation: string, answer: unknown): void {
  if (!condition) throw new ScenarioFailure(`${operation}: ${typeof answer === 'string' ? answer : JSON.stringify(answer)}`);
}

/** Runs one call; an exception becomes a failure naming the operation and the answer. */
async function step<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ResponseError) throw new ScenarioFailure(`${operation}: HTTP ${error.response.status} ${await error.response.text()}`);
    throw new ScenarioFailure(`${operation}: ${String(error)}`);
  }
}

/** Calls `call`, which must fail with the contract's problem; the problem as the generated model reads it. */
async function problemOf(operation: string, call: () => Promise<unknown>): Promise<Problem> {
  try {
    await call();
  } catch (error) {
    if (!(error instanceof ResponseError)) throw new ScenarioFailure(`${operation}: ${String(error)}`);
    check(error.response.headers.get('content-type') === 'application/problem+json', operation, `media type ${error.response.headers.get('content-type')}`);
    return ProblemFromJSON(await error.response.json());
  }
  throw new ScenarioFailure(`${operation}: answered 2xx where a problem was expected`);
}

const report = (operation: string): void => console.log(`ok ${operation}`);
const reportProblem = (operation: string, problem: Problem): void =>
  console.log(`problem ${operation} ${JSON.stringify({ type: problem.type, title: problem.title, status: problem.status, detail: problem.detail })}`);
const sameBytes = (actual: Uint8Array, expected: Uint8Array): boolean => actual.length === expected.length && actual.every((byte, i) => byte === expected[i]);

async function run(env: NodeJS.ProcessEnv): Promise<void> {
  const tenant = env['DESK_TENANT']!;
  const name = 'Scenario typescript';
  const token = env['DESK_TOKEN'] ?? '';
  const configuration = new Configuration({ basePath: env['DESK_URL']!, ...(token === '' ? {} : { accessToken: token }) });
  const health = new HealthApi(configuration);
  const search = new SearchApi(configuration);
  const views = new ViewsApi(configuration);
  const notebooks = new NotebooksApi(configuration);
  const notes = new NotesApi(configuration);
  const dimensions = new DimensionsApi(configuration);
  const content = new ContentApi(configuration);
  const meta = new MetaApi(configuration);

  // health
  const status = await step('getHealth', () => health.getHealth());
  check(status.status === 'ok', 'getHealth', status);
  report('getHealth');

  // tenants, a search and the findings' amount to the cent
  const tenants = await step('getJumpbar', () => search.getJumpbar({ mode: 'tenants' }));
  check('tenants' in tenants && tenants.tenants.some((t) => t.id.endsWith(`.${tenant}`)), 'getJumpbar', tenants);
  report('getJumpbar tenants');
  const hits = await step('getJumpbar', () => search.getJumpbar({ mode: 'search', tenant, q: 'fallpauschale' }));
  check('probes' in hits && [...hits.probes, ...hits.glossary, ...hits.entities, ...hits.dimensions].length > 0, 'getJumpbar', hits);
  report('getJumpbar search');
  const summary = await step('getJumpbar', () => search.getJumpbar({ mode: 'summary', tenant }));
  const money = 'summary' in summary ? String(summary.summary.money) : null;
  check(money === env['DESK_MONEY'], 'getJumpbar', `money read as ${money}, sent as ${env['DESK_MONEY']}`);
  report('getJumpbar summary');

  // a saved view created, listed, renamed, deleted
  const created = await step('createView', () =>
    views.createView({ createViewRequest: { tenant, entity: 'cost_centres', name, params: { sort: 'budget_chf', order: 'desc' } } }));
  const viewId = created.view.viewId;
  check(created.view.name === name, 'createView', created);
  report('createView');
  const listed = await step('listViews', () => views.listViews({ tenant, entity: 'cost_centres' }));
  check(listed.views.some((view) => view.viewId === viewId), 'listViews', listed);
  report('listViews');
  const renamed = await step('updateView', () => views.updateView({ updateViewRequest: { tenant, viewId, name: `${name}, renamed` } }));
  check(renamed.ok, 'updateView', renamed);
  const relisted = await step('listViews', () => views.listViews({ tenant }));
  check(relisted.views.some((view) => view.viewId === viewId && view.name === `${name}, renamed`), 'listViews', relisted);
  report('updateView');
  const deleted = await step('deleteView', () => views.deleteView({ tenant, viewId }));
  check(deleted.ok, 'deleteView', deleted);
  const remaining = await step('listViews', () => views.listViews({ tenant }));
  check(!remaining.views.some((view) => view.viewId === viewId), 'listViews', remaining);
  report('deleteView');

  // a notebook cell added and a discussion reply
  const withCell = await step('addNotebookCell', () =>
    notebooks.addNotebookCell({ tenant, addCellRequest: { cell: { type: 'discussion', title: name } } }));
  const cells = JSON.parse(withCell.notebook.cells) as { id: string; type: string; title?: string; replies?: unknown[] }[];
  const discussion = cells.findLast((cell) => cell.type === 'discussion' && cell.title === name);
  check(discussion !== undefined, 'addNotebookCell', withCell.notebook.cells);
  report('addNotebookCell');
  const withReply = await step('addDiscussionReply', () =>
    notebooks.addDiscussionReply({ tenant, cellId: discussion!.id, addReplyRequest: { author: 'Lukas Meier', text: { en: 'Confirmed.' } } }));
  const thread = (JSON.parse(withReply.notebook.cells) as typeof cells).find((cell) => cell.id === discussion!.id);
  check(thread?.replies?.length === 1, 'addDiscussionReply', withReply.notebook.cells);
  report('addDiscussionReply');

  // a note with a cell
  const note = await step('createNote', () => notes.createNote({ tenant, createNoteRequest: { title: name, tags: ['scenario'] } }));
  check(note.note.title === name && note.note.cells.length === 0, 'createNote', note);
  report('createNote');
  const added = await step('addToNote', () =>
    notes.addToNote({ tenant, noteId: note.note.noteId, addToNoteRequest: { cell: { type: 'action', text: 'Invoice the confirmed cases' } } }));
  check('cellId' in added, 'addToNote', added);
  const read = await step('getNote', () => notes.getNote({ tenant, noteId: note.note.noteId }));
  check(read.note.cells.length === 1, 'getNote', read);
  report('addToNote');

  // a dimension export with a sort and a column filter, read as CSV text
  const { csv, filtered } = await step('exportDimension', () => exportWithFilter(dimensions, tenant));
  const [header, ...rows] = csv.trimEnd().split('\r\n').map((line) => line.split(','));
  const budget = header!.indexOf('budget_chf');
  const active = header!.indexOf('active');
  check(budget >= 0 && active >= 0 && rows.length > 0, 'exportDimension', csv.slice(0, 200));
  const budgets = rows.map((row) => Number(row[budget]));
  check(budgets.every((value, i) => i === 0 || budgets[i - 1]! >= value), 'exportDimension', `not sorted by budget_chf desc: ${budgets.join(' ')}`);
  check(!filtered || rows.every((row) => row[active] === '1'), 'exportDimension', `column filter f.active=true not applied: ${rows.map((row) => row[active]).join(' ')}`);
  report('exportDimension');

  // a logo and a report read as bytes
  const logo = new Uint8Array(await (await step('getTenantLogo', () => content.getTenantLogo({ tenant }))).arrayBuffer());
  check(sameBytes(logo, readFileSync(env['DESK_LOGO_FILE']!)), 'getTenantLogo', `${logo.length} bytes, not those the server serves`);
  report('getTenantLogo');
  const pdf = new Uint8Array(await (await step('getReport', () => content.getReport({ tenant, reportKey: env['DESK_REPORT_KEY']! }))).arrayBuffer());
  check(sameBytes(pdf, readFileSync(env['DESK_REPORT_FILE']!)), 'getReport', `${pdf.length} bytes, not those the server serves`);
  report('getReport');

  // the pipeline graph and the contract read as text
  const graph = await step('getPipelineGraphHtml', () => readGraphHtml(content, tenant));
  if (graph !== null) {
    check(graph === readFileSync(env['DESK_GRAPH_FILE']!, 'utf8'), 'getPipelineGraphHtml', `${graph.length} characters, not those the server serves`);
    report('getPipelineGraphHtml');
  }
  const contract = await step('getOpenApiYaml', () => meta.getOpenApiYaml());
  check(contract === readFileSync(env['DESK_CONTRACT_FILE']!, 'utf8'), 'getOpenApiYaml', `${contract.length} characters, not those the server serves`);
  report('getOpenApiYaml');

  // a 404 and a 400 read as the contract's problem
  const notFound = await problemOf('listViews', () => views.listViews({ tenant: 'no-such-tenant' }));
  check(notFound.status === 404 && notFound.title !== '' && notFound.detail !== '', 'listViews', notFound);
  reportProblem('listViews', notFound);
  const invalid = await problemOf('getJumpbar', () => search.getJumpbar({ mode: 'search', tenant }));
  check(invalid.status === 400 && invalid.title !== '' && invalid.detail !== '', 'getJumpbar', invalid);
  reportProblem('getJumpbar', invalid);
}

run(process.env).catch((error: unknown) => {
  console.error(`FAIL typescript ${error instanceof ScenarioFailure ? error.message : String(error)}`);
  process.exitCode = 1;
});
