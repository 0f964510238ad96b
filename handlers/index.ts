import type { HandlerMap, OperationId } from '../src/operations/contract.js';
import { getApiDocs } from './get-api-docs.js';
import { getApiDocsAsset } from './get-api-docs-asset.js';
import { getDbStatus } from './get-db-status.js';
import { getHealth } from './get-health.js';
import { getHealthLive } from './get-health-live.js';
import { getHealthReady } from './get-health-ready.js';
import { getIdentity } from './get-identity.js';
import { getJumpbar } from './get-jumpbar.js';
import { getMetrics } from './get-metrics.js';
import { getOpenApiJson } from './get-open-api-json.js';
import { getOpenApiYaml } from './get-open-api-yaml.js';
import { getStoreStatus } from './get-store-status.js';
import { refreshStore } from './refresh-store.js';
import { refreshStoreViaGet } from './refresh-store-via-get.js';
import { explainEntity } from './explain-entity.js';
import { explainFinding } from './explain-finding.js';
import { getPipelineArtifact } from './get-pipeline-artifact.js';
import { getPipelineGraphHtml } from './get-pipeline-graph-html.js';
import { getReport } from './get-report.js';
import { getTenantLogo } from './get-tenant-logo.js';
import { exportDimension } from './export-dimension.js';
import { getMemberMappings } from './get-member-mappings.js';
import { getTaxonomyCardinality } from './get-taxonomy-cardinality.js';
import { getTaxonomyFanout } from './get-taxonomy-fanout.js';
import { listSharedMembers } from './list-shared-members.js';
import { listTaxonomyMembers } from './list-taxonomy-members.js';
import { addDiscussionReply } from './add-discussion-reply.js';
import { addNotebookCell } from './add-notebook-cell.js';
import { addToNote } from './add-to-note.js';
import { createNote } from './create-note.js';
import { createView } from './create-view.js';
import { deleteNote } from './delete-note.js';
import { deleteNotebookCell } from './delete-notebook-cell.js';
import { deleteView } from './delete-view.js';
import { getNote } from './get-note.js';
import { getNotebook } from './get-notebook.js';
import { listNotes } from './list-notes.js';
import { listViews } from './list-views.js';
import { updateNote } from './update-note.js';
import { updateNotebookCell } from './update-notebook-cell.js';
import { updateView } from './update-view.js';
import { compileSignalDefinition } from './compile-signal-definition.js';
import { listSignalDefinitions } from './list-signal-definitions.js';
import { loadSignalDefinition } from './load-signal-definition.js';
import { saveSignalDefinition } from './save-signal-definition.js';
import { validateSignalDefinition } from './validate-signal-definition.js';
import { createNarrative } from './create-narrative.js';
import { getDrift } from './get-drift.js';
import { streamTenantEvents } from './stream-tenant-events.js';

const implemented = {
  getHealth,
  getHealthLive,
  getHealthReady,
  getIdentity,
  getStoreStatus,
  getDbStatus,
  getJumpbar,
  refreshStore,
  refreshStoreViaGet,
  getOpenApiYaml,
  getOpenApiJson,
  getApiDocs,
  getApiDocsAsset,
  getMetrics,
  getTenantLogo,
  getPipelineArtifact,
  getPipelineGraphHtml,
  getReport,
  explainEntity,
  explainFinding,
  listTaxonomyMembers,
  getMemberMappings,
  listSharedMembers,
  getTaxonomyFanout,
  getTaxonomyCardinality,
  exportDimension,
  listViews,
  createView,
  updateView,
  deleteView,
  getNotebook,
  addNotebookCell,
  updateNotebookCell,
  deleteNotebookCell,
  addDiscussionReply,
  listNotes,
  createNote,
  getNote,
  addToNote,
  updateNote,
  deleteNote,
  listSignalDefinitions,
  loadSignalDefinition,
  saveSignalDefinition,
  validateSignalDefinition,
  compileSignalDefinition,
  createNarrative,
  getDrift,
  streamTenantEvents,
};

/** The one handler map: tsc fails when an operation of openapi.yaml has no handler or a handler has no operation. */
export const handlers = implemented satisfies HandlerMap;

/** `satisfies` does not see extra keys that arrive through a spread: a handler without an operation fails here. */
type Extra = Exclude<keyof typeof handlers, OperationId>;
const noExtra: [Extra] extends [never] ? true : Extra = true;
void noExtra;
