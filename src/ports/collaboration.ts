import type { components } from '../../generated/openapi.js';
import type { Precondition } from '../common/entity-tags.js';
import type { Missing } from '../common/missing.js';

// The ports of what users write on the app database: notebooks, notes and saved views, and the values they take and
// answer. Their services (src/notebooks/, src/notes/, src/views/) implement them.

/** The notebook as the API returns it; `cells` is a JSON string of the cells in display order. */
export type ApiNotebook = components['schemas']['Notebook'];

/** Why a change of a cell was not made: no such cell, or (a reply) the cell is no discussion. */
export type CellMiss = Missing<'cell' | 'discussion'>;

/** The notebook after a write, with its entity tag. */
export interface TaggedNotebook {
  notebook: ApiNotebook;
  etag: string;
}

/** The notebook's entity tag, and the notebook unless the caller's copy is current (`isHeld` said so). */
export interface NotebookRead {
  etag: string;
  notebook: ApiNotebook | null;
}

/** A reply as a request gives it; `date` defaults to today (UTC). */
export interface ReplyInput {
  author: string;
  text: components['schemas']['DiscussionReply']['text'];
  date?: string | undefined;
}


/** A full note as the API returns it. */
export type ApiNote = components['schemas']['Note'];
/** A note without cells, with `cell_count`. */
export type ApiNoteSummary = components['schemas']['NoteSummary'];

/** An entity tag and what it tags, unless the caller holds that tag already (then null). */
export interface TaggedRead<T> {
  etag: string;
  value: T | null;
}

/** A saved view as the API returns it. */
export type ApiSavedView = components['schemas']['SavedView'];

/** A cell as a request adds it, and the author the server records (the caller's, with sign-in). */
export interface NewCell {
  cell: Record<string, unknown>;
  author?: string | undefined;
}

/** Members to merge into a stored cell, and the author the server records. */
export interface CellChange {
  updates: Record<string, unknown>;
  author?: string | undefined;
}

/**
 * A tenant's notebook. Writes take `precondition` (If-Match: 412 when it fails) and answer the updated notebook
 * with its new tag; a cell that breaks the cell rules is a 400 problem.
 */
export interface Notebooks {
  /** The notebook (created empty on first access) and its tag; `notebook` null when `isHeld` holds the tag. */
  read(tenantId: string, isHeld?: (etag: string) => boolean): Promise<NotebookRead>;
  addCell(tenantId: string, cell: NewCell, precondition?: Precondition): Promise<TaggedNotebook & { cellId: string }>;
  updateCell(tenantId: string, cellId: string, change: CellChange, precondition?: Precondition): Promise<TaggedNotebook | Missing<'cell'>>;
  deleteCell(tenantId: string, cellId: string, precondition?: Precondition): Promise<TaggedNotebook | Missing<'cell'>>;
  addReply(tenantId: string, cellId: string, reply: ReplyInput, precondition?: Precondition): Promise<TaggedNotebook | CellMiss>;
}

/**
 * A tenant's notes. Writes take `precondition` (If-Match: 412 when it fails, also for a missing note) and answer
 * the note's new tag, or what is missing (the note, the cell).
 */
export interface Notes {
  /** Summaries, most recently updated first, and the list's tag; `value` null when `isHeld` holds the tag. */
  list(tenantId: string, isHeld?: (etag: string) => boolean): Promise<TaggedRead<ApiNoteSummary[]>>;
  create(tenantId: string, note: { title: string; tags: string[]; author: string | null }): Promise<{ note: ApiNote; etag: string }>;
  /** The note with its cells and its tag, or missing; `value` null when `isHeld` holds the tag. */
  read(tenantId: string, noteId: string, isHeld?: (etag: string) => boolean): Promise<TaggedRead<ApiNote> | Missing<'note'>>;
  addCell(tenantId: string, noteId: string, cell: NewCell, precondition?: Precondition): Promise<{ cellId: string; etag: string } | Missing<'note'>>;
  addReply(tenantId: string, noteId: string, cellId: string, reply: ReplyInput, precondition?: Precondition): Promise<{ etag: string } | CellMiss | Missing<'note'>>;
  updateMetadata(tenantId: string, noteId: string, change: { title?: string | undefined; tags?: string[] | undefined }, precondition?: Precondition): Promise<string | Missing<'note'>>;
  updateCell(tenantId: string, noteId: string, cellId: string, change: CellChange, precondition?: Precondition): Promise<string | Missing<'note' | 'cell'>>;
  /** Deletes the note with its cells; nothing, or missing. */
  delete(tenantId: string, noteId: string, precondition?: Precondition): Promise<Missing<'note'> | undefined>;
  deleteCell(tenantId: string, noteId: string, cellId: string, precondition?: Precondition): Promise<string | Missing<'note' | 'cell'>>;
}

/** A tenant's saved views. Writes take `precondition` (If-Match: 412 when it fails, also for a missing view). */
export interface SavedViews {
  /** The views (of one entity when given), most recently changed first, each with its tag when `withTags`; the list's tag. */
  list(tenantId: string, entity?: string, withTags?: boolean): Promise<{ etag: string; views: ApiSavedView[] }>;
  /** The new view and its tag; 400 when `params` is beyond the size limit. */
  create(tenantId: string, view: { entity: string; name: string; params: Record<string, unknown>; author?: string | undefined }): Promise<{ view: ApiSavedView; etag: string }>;
  /** The view's tag after the change (unchanged when nothing is given), or missing. */
  update(tenantId: string, change: { viewId: string; name?: string | undefined; params?: Record<string, unknown> | undefined }, precondition?: Precondition): Promise<string | Missing<'view'>>;
  /** Deletes the view; nothing, or missing. */
  delete(tenantId: string, viewId: string, precondition?: Precondition): Promise<Missing<'view'> | undefined>;
}
