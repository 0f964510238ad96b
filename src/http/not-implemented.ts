import type { Handler, OperationWith501, Result } from './contract.js';
import { problemResult } from './results.js';

/**
 * The one list of operations this build does not implement yet: each answers 501 problem+json, its contract
 * entry declares that 501, and the Dredd hooks skip exactly these. Later issues empty it.
 */
export const NOT_IMPLEMENTED = [
  // issue #4: search, content delivery, lineage
  'getTenantLogo',
  'getPipelineArtifact',
  'getReport',
  'explainEntity',
  'explainFinding',
  // issue #8: narratives and drift
  'createNarrative',
  'getDrift',
  // issue #6: saved views, notebooks, notes
  'listViews',
  'createView',
  'updateView',
  'deleteView',
  'getNotebook',
  'addNotebookCell',
  'updateNotebookCell',
  'deleteNotebookCell',
  'addDiscussionReply',
  'listNotes',
  'createNote',
  'getNote',
  'addToNote',
  'updateNote',
  'deleteNote',
  // issue #7: signal builder
  'listSignalDefinitions',
  'loadSignalDefinition',
  'saveSignalDefinition',
  'validateSignalDefinition',
  'compileSignalDefinition',
  // issue #5: taxonomies and dimension export
  'listTaxonomyMembers',
  'getMemberMappings',
  'listSharedMembers',
  'getTaxonomyFanout',
  'getTaxonomyCardinality',
  'exportDimension',
] as const satisfies readonly OperationWith501[];

/**
 * Modes of implemented operations that are not built yet (same list, finer grain): the operation answers 501
 * for these parameter values. issue #4: jumpbar search needs its per-tenant index.
 */
export const NOT_IMPLEMENTED_MODES = {
  getJumpbar: { parameter: 'mode', values: ['search'] },
} as const;

export type NotImplementedOperation = (typeof NOT_IMPLEMENTED)[number];

/** The handler of an operation on the list. */
export function notImplemented<K extends OperationWith501>(operationId: K): Handler<K> {
  return async () => problemResult('not-implemented', `${operationId} is not implemented in this build`) as Result<K>;
}

/** Handlers for every operation on the list. */
export const notImplementedHandlers = Object.fromEntries(NOT_IMPLEMENTED.map((id) => [id, notImplemented(id)])) as {
  [K in NotImplementedOperation]: Handler<K>;
};
