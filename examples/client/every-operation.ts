// Calls every operation of openapi.yaml through the generated SDK functions, each with its contract example, and
// checks each answer through the generated types. Run by test/client/generated-client.test.ts against the demo data.
import type { Client } from '../../build/client/client/index.js';
import {
  addDiscussionReply, addNotebookCell, addToNote, compileSignalDefinition, createNarrative, createNote, createView,
  deleteNote, deleteNotebookCell, deleteView, explainEntity, explainFinding, exportDimension, getApiDocs,
  getApiDocsAsset, getDbStatus, getDrift, getHealth, getHealthLive, getHealthReady, getIdentity, getJumpbar,
  getMemberMappings, getMetrics, getNote, getNotebook, getOpenApiJson, getOpenApiYaml, getPipelineArtifact,
  getPipelineGraphHtml, getReport, getStoreStatus, getTaxonomyCardinality, getTaxonomyFanout, getTenantLogo, listNotes,
  listSharedMembers, listSignalDefinitions, listTaxonomyMembers, listViews, loadSignalDefinition, refreshStore,
  refreshStoreViaGet, saveSignalDefinition, streamTenantEvents, updateNote, updateNotebookCell, updateView, validateSignalDefinition,
} from '../../build/client/index.js';
import type {
  AddDiscussionReplyData, AddNotebookCellData, AddToNoteData, Cell, ChangeEvent, CompileSignalDefinitionData, CreateNarrativeData,
  CreateNoteData, CreateViewData, DeleteNotebookCellData, DeleteNoteData, DeleteViewData, DriftResult,
  ExplainEntityData, ExplainFindingData, ExportDimensionData, GetApiDocsAssetData, GetDbStatusData, GetDriftData,
  GetIdentityData, GetJumpbarData, GetMemberMappingsData, GetNotebookData, GetNoteData, GetPipelineArtifactData,
  GetPipelineGraphHtmlData, GetReportData, GetTaxonomyCardinalityData, GetTaxonomyFanoutData, GetTenantLogoData,
  ListNotesData, ListSharedMembersData, ListSignalDefinitionsData, ListTaxonomyMembersData, ListViewsData,
  LoadSignalDefinitionData, Notebook, RefreshStoreData, RefreshStoreViaGetData, SaveSignalDefinitionData,
  UpdateNotebookCellData, UpdateNoteData, UpdateViewData, ValidateSignalDefinitionData,
} from '../../build/client/index.js';
import { check, deskClient, example, leadingBytes, ok, type ContractExamples, type Target } from './desk-client.js';

/** Calls all operations of the contract at least once against `target`; throws at the first answer that is wrong. */
export async function callEveryOperation(target: Target, examples: ContractExamples): Promise<void> {
  const client = deskClient(target);
  await healthAndMeta(client, examples);
  await content(client, examples);
  await views(client, examples);
  await signals(client, examples);
  await notebook(client, examples);
  await notes(client, examples);
  await taxonomies(client, examples);
  await contractAndDocs(client, examples);
}

async function healthAndMeta(client: Client, examples: ContractExamples): Promise<void> {
  const health = await ok('getHealth', getHealth({ client }));
  const status: 'ok' | 'degraded' = health.status;
  check(status === 'ok', `health is ${status}`);
  check(health.mode === 'local' && health.db.tenants > 0 && health.db.appDb === 'ok', 'health names the local tenants and app database');
  const live = await ok('getHealthLive', getHealthLive({ client }));
  const liveStatus: 'live' = live.status;
  check(liveStatus === 'live', `liveness is ${liveStatus}`);
  const ready = await ok('getHealthReady', getHealthReady({ client }));
  const readyStatus: 'ready' = ready.status;
  check(readyStatus === 'ready' && ready.mode === 'local', 'readiness is ready in local mode');

  const identity = await ok('getIdentity', getIdentity({ client, ...example<GetIdentityData>(examples, 'getIdentity') }));
  const roles: ('viewer' | 'editor' | 'admin')[] = identity.roles;
  check(roles.includes('admin') && identity.tenants.includes('*'), `identity roles ${roles} tenants ${identity.tenants}`);

  const store = await ok('getStoreStatus', getStoreStatus({ client }));
  check(!store.active, 'the store is not active in local mode');

  const db = await ok('getDbStatus', getDbStatus({ client, ...example<GetDbStatusData>(examples, 'getDbStatus') }));
  check(db.generation >= 1 && !Number.isNaN(Date.parse(db.mtime)), 'db-status has a generation and an mtime');

  const drift = await ok('getDrift', getDrift({ client, ...example<GetDriftData>(examples, 'getDrift') }));
  const driftStates: readonly DriftResult['status'][] = ['in_sync', 'behind', 'no_build_info', 'no_remote', 'repo_not_found', 'api_error', 'fetch_error'];
  check(driftStates.includes(drift.status), `drift status ${drift.status}`);

  for (const [operationId, call] of [
    ['refreshStoreViaGet', () => refreshStoreViaGet({ client, ...example<RefreshStoreViaGetData>(examples, 'refreshStoreViaGet') })],
    ['refreshStore', () => refreshStore({ client, ...example<RefreshStoreData>(examples, 'refreshStore') })],
  ] as const) {
    const refresh = await ok(operationId, call());
    check(refresh.status === 'skipped' && refresh.reason.length > 0, `${operationId} is skipped in local mode`);
  }
}

async function content(client: Client, examples: ContractExamples): Promise<void> {
  const search = await ok('getJumpbar', getJumpbar({ client, ...example<GetJumpbarData>(examples, 'getJumpbar') }));
  check('probes' in search, 'the example asks for search results');
  const hits = [search.probes, search.hypotheses, search.taxonomies, search.entities, search.smebits, search.bitbundles, search.people, search.dimensions, search.glossary];
  check(hits.every((kind) => kind.length <= 10) && hits.some((kind) => kind.length > 0), 'search answers at most 10 hits per kind, some at all');
  const tenants = await ok('getJumpbar', getJumpbar({ client, query: { mode: 'tenants' } }));
  check('tenants' in tenants && tenants.tenants.every((t) => t.source === 'local'), 'the tenant list names local tenants');

  const logo = await ok('getTenantLogo', getTenantLogo({ client, ...example<GetTenantLogoData>(examples, 'getTenantLogo'), parseAs: 'blob' }));
  check(logo instanceof Blob && logo.type === 'image/png', `logo is ${logo.type}`);
  check((await leadingBytes(logo, 4)).join() === [0x89, 0x50, 0x4e, 0x47].join(), 'logo bytes are PNG');

  const graph = await ok('getPipelineArtifact', getPipelineArtifact({ client, ...example<GetPipelineArtifactData>(examples, 'getPipelineArtifact') }));
  check(typeof graph === 'object' && Object.keys(graph).length > 0, 'the pipeline graph is a JSON object');
  const html = await ok('getPipelineGraphHtml', getPipelineGraphHtml({ client, ...example<GetPipelineGraphHtmlData>(examples, 'getPipelineGraphHtml') }));
  check(typeof html === 'string' && /^<!DOCTYPE html>/i.test(html), 'the pipeline graph as HTML text');

  const report = await ok('getReport', getReport({ client, ...example<GetReportData>(examples, 'getReport'), parseAs: 'blob' }));
  check(report.type === 'application/pdf' && String.fromCharCode(...(await leadingBytes(report, 5))) === '%PDF-', 'report is a PDF');

  const entityExample = example<ExplainEntityData>(examples, 'explainEntity');
  const explained = await ok('explainEntity', explainEntity({ client, ...entityExample }));
  check(explained.entity_id === entityExample.query.entity_id && Array.isArray(explained.groups), 'explain names the entity');

  const findingExample = example<ExplainFindingData>(examples, 'explainFinding');
  const finding = await ok('explainFinding', explainFinding({ client, ...findingExample }));
  check(finding.explanation.finding.finding_id === findingExample.path.finding_id, 'the explanation is of the finding asked for');
  const moneyAtRisk: number = finding.explanation.finding.money_at_risk;
  check(Number.isFinite(moneyAtRisk), 'money at risk is a number');

  const narrative = await ok('createNarrative', createNarrative({ client, ...example<CreateNarrativeData>(examples, 'createNarrative') }));
  check(narrative.narrative.length > 0 && narrative.model.length > 0, 'the narrative has text and names its model');
}

async function views(client: Client, examples: ContractExamples): Promise<void> {
  const listed = await ok('listViews', listViews({ client, ...example<ListViewsData>(examples, 'listViews') }));
  check(Array.isArray(listed.views), 'views is a list');

  const createExample = example<CreateViewData>(examples, 'createView');
  const { view } = await ok('createView', createView({ client, ...createExample }));
  check(view.name === createExample.body.name && view.entity === createExample.body.entity, 'the view is the one created');

  const updateExample = example<UpdateViewData>(examples, 'updateView');
  const updated = await ok('updateView', updateView({ client, body: { ...updateExample.body, view_id: view.view_id } }));
  check(updated.ok, 'updateView changed the created view');

  const deleteExample = example<DeleteViewData>(examples, 'deleteView');
  const deleted = await ok('deleteView', deleteView({ client, query: { ...deleteExample.query, view_id: view.view_id } }));
  check(deleted.ok, 'deleteView removed the created view');
}

async function signals(client: Client, examples: ContractExamples): Promise<void> {
  const loadExample = example<LoadSignalDefinitionData>(examples, 'loadSignalDefinition');
  const listed = await ok('listSignalDefinitions', listSignalDefinitions({ client, ...example<ListSignalDefinitionsData>(examples, 'listSignalDefinitions') }));
  check(listed.probes.some((probe) => probe.probe_id === loadExample.query.probe_id), 'the list holds the example signal');

  const source = await ok('loadSignalDefinition', loadSignalDefinition({ client, ...loadExample }));
  check(source.probe_id === loadExample.query.probe_id && source.yaml.includes(source.probe_id), 'the YAML of the signal asked for');

  const saved = await ok('saveSignalDefinition', saveSignalDefinition({ client, ...example<SaveSignalDefinitionData>(examples, 'saveSignalDefinition') }));
  check(saved.saved && saved.path.endsWith('.yaml'), 'the signal was saved');

  const validation = await ok('validateSignalDefinition', validateSignalDefinition({ client, ...example<ValidateSignalDefinitionData>(examples, 'validateSignalDefinition') }));
  check(validation.valid && validation.errors.length === 0, 'the example signal is valid');

  const compiled = await ok('compileSignalDefinition', compileSignalDefinition({ client, ...example<CompileSignalDefinitionData>(examples, 'compileSignalDefinition') }));
  check(compiled.ok && compiled.sql.startsWith('SELECT'), 'the example signal compiles to SQL');
}

/** The cells of a notebook (the contract sends them as JSON text). */
const cellsOf = (notebook: Notebook): Cell[] => JSON.parse(notebook.cells) as Cell[];

async function notebook(client: Client, examples: ContractExamples): Promise<void> {
  const tenant = example<GetNotebookData>(examples, 'getNotebook');
  const before = cellsOf((await ok('getNotebook', getNotebook({ client, ...tenant }))).notebook);

  // the tenant's changes as they happen: the SDK reads the event stream (and would resume it with Last-Event-ID);
  // the cell is added once the stream has begun, and its event is the stream's first
  const listening = new AbortController();
  let begun: () => void = () => undefined;
  const beginning = new Promise<void>((resolve) => (begun = resolve));
  const { stream } = await streamTenantEvents({ client, ...tenant, signal: listening.signal, sseMaxRetryAttempts: 1, onSseEvent: () => begun() });
  const firstEvent = stream.next();
  await beginning;
  const added = await ok('addNotebookCell', addNotebookCell({ client, ...example<AddNotebookCellData>(examples, 'addNotebookCell') }));
  // the stream's schema is text; each event's data is a ChangeEvent of the contract's schemas
  const change = (await firstEvent).value as unknown as ChangeEvent | undefined;
  listening.abort();
  const narrative = cellsOf(added.notebook).find((cell) => !before.some((old) => old.id === cell.id));
  check(narrative?.type === 'narrative', 'addNotebookCell added the example narrative');
  check(change?.resource === 'notebook-cell' && change.id === narrative.id, 'streamTenantEvents told of the added cell');
  const discussionAdded = await ok('addNotebookCell', addNotebookCell({ ...tenant, client, body: { cell: { type: 'discussion', title: 'Unbilled cases' } } }));
  const discussion = cellsOf(discussionAdded.notebook).find((cell) => cell.type === 'discussion' && cell.title === 'Unbilled cases');
  check(discussion !== undefined, 'addNotebookCell added the discussion');

  const updateExample = example<UpdateNotebookCellData>(examples, 'updateNotebookCell');
  const updated = await ok('updateNotebookCell', updateNotebookCell({ client, ...updateExample, path: { ...updateExample.path, cell_id: narrative.id } }));
  const changed = cellsOf(updated.notebook).find((cell) => cell.id === narrative.id);
  check(changed?.type === 'narrative' && changed.text.en !== narrative.text.en, 'the narrative has the new text');

  const replyExample = example<AddDiscussionReplyData>(examples, 'addDiscussionReply');
  const replied = await ok('addDiscussionReply', addDiscussionReply({ client, ...replyExample, path: { ...replyExample.path, cell_id: discussion.id } }));
  const thread = cellsOf(replied.notebook).find((cell) => cell.id === discussion.id);
  check(thread?.type === 'discussion' && thread.replies.length === 1, 'the discussion has the reply');

  const deleteExample = example<DeleteNotebookCellData>(examples, 'deleteNotebookCell');
  const remaining = await ok('deleteNotebookCell', deleteNotebookCell({ client, path: { ...deleteExample.path, cell_id: narrative.id } }));
  check(!cellsOf(remaining.notebook).some((cell) => cell.id === narrative.id), 'the narrative is gone');
}

async function notes(client: Client, examples: ContractExamples): Promise<void> {
  const listed = await ok('listNotes', listNotes({ client, ...example<ListNotesData>(examples, 'listNotes') }));
  check(listed.notes.every((note) => note.cell_count >= 0), 'notes have cell counts');

  const createExample = example<CreateNoteData>(examples, 'createNote');
  const { note } = await ok('createNote', createNote({ client, ...createExample }));
  check(note.title === createExample.body.title && note.cells.length === 0, 'the note is the one created, empty');
  const inNote = <P extends { note_id: string }>(path: P): P => ({ ...path, note_id: note.note_id });

  const getExample = example<GetNoteData>(examples, 'getNote');
  const fetched = await ok('getNote', getNote({ client, path: inNote(getExample.path) }));
  check(fetched.note.note_id === note.note_id, 'getNote answers the created note');

  const addExample = example<AddToNoteData>(examples, 'addToNote');
  const added = await ok('addToNote', addToNote({ client, ...addExample, path: inNote(addExample.path) }));
  check('cell_id' in added, 'adding a cell answers its ID');

  const updateExample = example<UpdateNoteData>(examples, 'updateNote');
  const updated = await ok('updateNote', updateNote({ client, ...updateExample, path: inNote(updateExample.path) }));
  check(updated.ok, 'updateNote changed the note');

  const deleteExample = example<DeleteNoteData>(examples, 'deleteNote');
  const cellDeleted = await ok('deleteNote', deleteNote({ client, path: inNote(deleteExample.path), query: { cell_id: added.cell_id } }));
  check(cellDeleted.ok, 'deleteNote with cell_id removed the cell');
  const noteDeleted = await ok('deleteNote', deleteNote({ client, path: inNote(deleteExample.path) }));
  check(noteDeleted.ok, 'deleteNote removed the note');
}

async function taxonomies(client: Client, examples: ContractExamples): Promise<void> {
  const membersExample = example<ListTaxonomyMembersData>(examples, 'listTaxonomyMembers');
  const members = await ok('listTaxonomyMembers', listTaxonomyMembers({ client, ...membersExample }));
  check(members.every((member) => member.taxonomy_id === membersExample.path.taxonomy_id && member.name.en.length > 0), 'members of the taxonomy asked for');

  const mappings = await ok('getMemberMappings', getMemberMappings({ client, ...example<GetMemberMappingsData>(examples, 'getMemberMappings') }));
  check(mappings.length > 0 && mappings.every((mapping) => mapping.node_name.en.length > 0), 'the member is mapped');

  const shared = await ok('listSharedMembers', listSharedMembers({ client, ...example<ListSharedMembersData>(examples, 'listSharedMembers') }));
  check(shared.every((member) => Array.isArray(member.nodesA) && Array.isArray(member.nodesB)), 'shared members name their nodes');

  const fanoutExample = example<GetTaxonomyFanoutData>(examples, 'getTaxonomyFanout');
  const fanout = await ok('getTaxonomyFanout', getTaxonomyFanout({ client, ...fanoutExample }));
  check(fanout.a === fanoutExample.query.a && fanout.b === fanoutExample.query.b && fanout.max >= 0, 'the fanout of the pair asked for');

  const cardinality = await ok('getTaxonomyCardinality', getTaxonomyCardinality({ client, ...example<GetTaxonomyCardinalityData>(examples, 'getTaxonomyCardinality') }));
  const relations: readonly (typeof cardinality.relation)[] = ['one_to_one', 'one_to_many', 'many_to_one', 'many_to_many'];
  check(relations.includes(cardinality.relation), `relation ${cardinality.relation}`);

  const csv = await ok('exportDimension', exportDimension({ client, ...example<ExportDimensionData>(examples, 'exportDimension'), parseAs: 'text' }));
  const [header, ...rows] = csv.trimEnd().split(/\r?\n/);
  check(typeof csv === 'string' && header !== undefined && header.includes('budget_chf') && rows.length > 0, 'the export is CSV with rows');
}

async function contractAndDocs(client: Client, examples: ContractExamples): Promise<void> {
  const yaml = await ok('getOpenApiYaml', getOpenApiYaml({ client, parseAs: 'text' }));
  check(typeof yaml === 'string' && yaml.startsWith('openapi: 3.0.3'), 'the contract as YAML text');

  const document = await ok('getOpenApiJson', getOpenApiJson({ client }));
  check(document.openapi === '3.0.3' && '/health' in document.paths, 'the contract as JSON');

  const page = await ok('getApiDocs', getApiDocs({ client, parseAs: 'text' }));
  check(typeof page === 'string' && /<html/i.test(page), 'the docs page is HTML');

  const stylesheet = await ok('getApiDocsAsset', getApiDocsAsset({ client, ...example<GetApiDocsAssetData>(examples, 'getApiDocsAsset'), parseAs: 'blob' }));
  check(stylesheet instanceof Blob && stylesheet.type.startsWith('text/css') && stylesheet.size > 0, `docs asset is ${stylesheet.type}`);

  const metrics = await ok('getMetrics', getMetrics({ client, parseAs: 'text' }));
  check(typeof metrics === 'string' && metrics.includes('# TYPE '), 'metrics in the Prometheus text format');
}
