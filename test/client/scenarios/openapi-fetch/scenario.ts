// The client scenario in TypeScript, through openapi-fetch typed by the paths openapi-typescript made from the contract
// (desk-api.d.ts). test/client/other-generators.test.ts copies this folder beside the contract, generates the types,
// type-checks both with `tsc --strict` and runs the scenario with the server and the expected bytes in the
// environment (the same variables as ../oapi-codegen/main.go). Each step prints `ok <step>`; a problem read prints
// `problem <operation> <JSON>`; the first wrong answer ends the run with `FAIL openapi-fetch <step>: <answer>`.
import fs from 'node:fs';
import createClient from 'openapi-fetch';
import type { components, paths } from './desk-api.js';

type Problem = components['schemas']['Problem'];

class ScenarioFailure extends Error {}

const env = (name: string): string => process.env[name] ?? '';

function check(condition: boolean, step: string, answer: unknown): asserts condition {
  if (!condition) throw new ScenarioFailure(`${step}: ${typeof answer === 'string' ? answer : JSON.stringify(answer)}`);
}

const report = (step: string): void => console.log(`ok ${step}`);

function reportProblem(operation: string, problem: Problem | undefined): void {
  check(problem !== undefined, operation, 'no problem read');
  console.log(`problem ${operation} ${JSON.stringify({ type: problem.type, title: problem.title, status: problem.status, detail: problem.detail })}`);
}

/** The header rows and the rows of a CSV export (the demo's values hold no commas or quotes). */
function csvRows(step: string, csv: string | undefined): { header: string[]; rows: string[][] } {
  check(csv !== undefined, step, 'no CSV');
  const [header, ...rows] = csv.replace(/\r\n$/, '').split('\r\n').map((line) => line.split(','));
  check(header !== undefined && rows.length > 0, step, csv);
  return { header, rows };
}

async function run(): Promise<void> {
  const tenant = env('DESK_TENANT');
  const token = env('DESK_TOKEN');
  const desk = createClient<paths>({
    baseUrl: env('DESK_URL'),
    headers: token === '' ? {} : { Authorization: `Bearer ${token}` },
    // `filters` is `style: form, explode: true`: its keys are the query keys (openapi-fetch's default is deepObject)
    querySerializer: { object: { style: 'form', explode: true } },
  });

  // health: a oneOf with a discriminator (mode)
  const health = await desk.GET('/health');
  check(health.data?.status === 'ok', 'getHealth', health.error ?? health.data);
  report('getHealth');

  // the jumpbar's answer is a oneOf without a discriminator: narrow it with `in`
  const tenants = await desk.GET('/api/jumpbar', { params: { query: { mode: 'tenants' } } });
  check(tenants.data !== undefined && 'tenants' in tenants.data && tenants.data.tenants.some((item) => item.id.endsWith(`.${tenant}`)), 'getJumpbar tenants', tenants.error ?? tenants.data);
  report('getJumpbar tenants');
  const search = await desk.GET('/api/jumpbar', { params: { query: { mode: 'search', tenant, q: 'fallpauschale' } } });
  check(search.data !== undefined && 'glossary' in search.data, 'getJumpbar search', search.error ?? search.data);
  const hits = search.data;
  check(hits.probes.length + hits.glossary.length + hits.entities.length + hits.dimensions.length > 0, 'getJumpbar search', hits);
  report('getJumpbar search');
  const summary = await desk.GET('/api/jumpbar', { params: { query: { mode: 'summary', tenant } } });
  check(summary.data !== undefined && 'summary' in summary.data, 'getJumpbar summary', summary.error ?? summary.data);
  check(String(summary.data.summary.money) === env('DESK_MONEY'), 'getJumpbar summary', `money read as ${summary.data.summary.money}, sent as ${env('DESK_MONEY')}`);
  report('getJumpbar summary');

  // a slug in two packs: 409, read as the contract's problem
  const ambiguous = await desk.GET('/api/views', { params: { query: { tenant: env('DESK_AMBIGUOUS_TENANT') } } });
  check(ambiguous.response.status === 409, 'listViews 409', ambiguous.error ?? ambiguous.data);
  reportProblem('listViews', ambiguous.error);
  report('listViews 409');

  // a saved view: its ETag, a rename with If-Match, the same rename with the old tag (412), then deleted
  const name = 'Scenario openapi-fetch';
  const created = await desk.POST('/api/views', { body: { tenant, entity: 'cost_centres', name, params: { sort: 'budget_chf' } } });
  const viewTag = created.response.headers.get('ETag');
  check(created.data?.view.name === name && viewTag !== null, 'createView', created.error ?? created.data);
  const viewId = created.data.view.view_id;
  report('createView');
  const rename = { tenant, view_id: viewId, name: `${name}, renamed` };
  const updated = await desk.PUT('/api/views', { params: { header: { 'If-Match': viewTag } }, body: rename });
  const renamedTag = updated.response.headers.get('ETag');
  check(updated.data?.ok === true && renamedTag !== null && renamedTag !== viewTag, 'updateView', updated.error ?? updated.data);
  report('updateView');
  const stale = await desk.PUT('/api/views', { params: { header: { 'If-Match': viewTag } }, body: rename });
  check(stale.response.status === 412, 'updateView 412', stale.error ?? stale.data);
  reportProblem('updateView', stale.error);
  report('updateView 412');
  const deleted = await desk.DELETE('/api/views', { params: { query: { tenant, view_id: viewId }, header: { 'If-Match': renamedTag } } });
  check(deleted.data?.ok === true, 'deleteView', deleted.error ?? deleted.data);
  report('deleteView');

  // a notebook cell: added (201, ETag, Location), changed with If-Match, changed again with the old tag (412)
  const added = await desk.POST('/{tenant}/api/notebook/cells', { params: { path: { tenant } }, body: { cell: { type: 'discussion', title: name } } });
  const location = added.response.headers.get('Location');
  const notebookTag = added.response.headers.get('ETag');
  check(added.response.status === 201 && location !== null && notebookTag !== null, 'addNotebookCell', added.error ?? added.data);
  const cellId = location.slice(location.lastIndexOf('/') + 1);
  check(added.data?.notebook.cells.includes(`"${cellId}"`) === true, 'addNotebookCell', location);
  report('addNotebookCell');
  const change = { updates: { title: `${name}, renamed` } };
  const changed = await desk.PUT('/{tenant}/api/notebook/cells/{cell_id}', { params: { path: { tenant, cell_id: cellId }, header: { 'If-Match': notebookTag } }, body: change });
  const changedTag = changed.response.headers.get('ETag');
  check(changed.data?.notebook.cells.includes(`${name}, renamed`) === true && changedTag !== null && changedTag !== notebookTag, 'updateNotebookCell', changed.error ?? changed.data);
  report('updateNotebookCell');
  const refused = await desk.PUT('/{tenant}/api/notebook/cells/{cell_id}', { params: { path: { tenant, cell_id: cellId }, header: { 'If-Match': notebookTag } }, body: change });
  check(refused.response.status === 412, 'updateNotebookCell 412', refused.error ?? refused.data);
  reportProblem('updateNotebookCell', refused.error);
  report('updateNotebookCell 412');

  // a CSV export sorted by budget, unfiltered and with the column filter in both forms (text: parseAs 'text')
  const exportPath = '/{tenant}/dimensions/{entity}/export' as const;
  const all = await desk.GET(exportPath, { params: { path: { tenant, entity: 'cost_centres' }, query: { sort: 'budget_chf', order: 'desc' } }, parseAs: 'text' });
  check(all.response.status === 200, 'exportDimension', all.error ?? all.data);
  const unfiltered = csvRows('exportDimension', all.data);
  const listed = await desk.GET(exportPath, { params: { path: { tenant, entity: 'cost_centres' }, query: { sort: 'budget_chf', order: 'desc', filter: ['active:true'] } }, parseAs: 'text' });
  check(listed.response.status === 200, 'exportDimension filter', listed.error ?? listed.data);
  const filtered = csvRows('exportDimension filter', listed.data);
  const active = filtered.header.indexOf('active');
  check(active >= 0 && filtered.rows.length < unfiltered.rows.length && filtered.rows.every((row) => row[active] === '1'), 'exportDimension filter', listed.data ?? '');
  report('exportDimension filter');
  const exploded = await desk.GET(exportPath, { params: { path: { tenant, entity: 'cost_centres' }, query: { sort: 'budget_chf', order: 'desc', filters: { 'f.active': 'true' } } }, parseAs: 'text' });
  check(exploded.response.status === 200 && exploded.data === listed.data, 'exportDimension filters', exploded.error ?? exploded.data);
  // without the querySerializer above openapi-fetch sends `filters[f.active]=true`, which the server refuses (docs/clients.md)
  const deepObject = await createClient<paths>({ baseUrl: env('DESK_URL'), headers: token === '' ? {} : { Authorization: `Bearer ${token}` } })
    .GET(exportPath, { params: { path: { tenant, entity: 'cost_centres' }, query: { filters: { 'f.active': 'true' } } }, parseAs: 'text' });
  check(deepObject.response.status === 400 && decodeURIComponent(new URL(deepObject.response.url).search).includes('filters[f.active]=true'), 'exportDimension filters', `without querySerializer: HTTP ${deepObject.response.status} for ${deepObject.response.url}`);
  report('exportDimension filters');

  // the HTML graph and the contract as text; the logo and a report as bytes
  const graph = await desk.GET('/api/pipeline/{tenant}/graph_html', { params: { path: { tenant } }, parseAs: 'text' });
  check(graph.data === fs.readFileSync(env('DESK_GRAPH_FILE'), 'utf8'), 'getPipelineGraphHtml', graph.error ?? `${graph.data?.length} characters, not those the server serves`);
  report('getPipelineGraphHtml');
  const contract = await desk.GET('/openapi.yaml', { parseAs: 'text' });
  check(contract.data === fs.readFileSync(env('DESK_CONTRACT_FILE'), 'utf8'), 'getOpenApiYaml', contract.error ?? `${contract.data?.length} characters, not those the server serves`);
  report('getOpenApiYaml');
  const logo = await desk.GET('/api/logo/{tenant}', { params: { path: { tenant } }, parseAs: 'arrayBuffer' });
  check(logo.data !== undefined && Buffer.from(logo.data).equals(fs.readFileSync(env('DESK_LOGO_FILE'))), 'getTenantLogo', logo.error ?? `${logo.data?.byteLength} bytes, not those the server serves`);
  report('getTenantLogo');
  const pdf = await desk.GET('/api/reports/{tenant}/{report_key}', { params: { path: { tenant, report_key: env('DESK_REPORT_KEY') } }, parseAs: 'arrayBuffer' });
  check(pdf.data !== undefined && Buffer.from(pdf.data).equals(fs.readFileSync(env('DESK_REPORT_FILE'))), 'getReport', pdf.error ?? `${pdf.data?.byteLength} bytes, not those the server serves`);
  report('getReport');
}

try {
  await run();
} catch (error) {
  if (!(error instanceof ScenarioFailure)) throw error;
  console.error(`FAIL openapi-fetch ${error.message}`);
  process.exitCode = 1;
}
