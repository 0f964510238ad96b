import type { components } from '../../generated/openapi.js';
import type { Precondition } from '../common/entity-tags.js';

// The ports of what users write on the app database: notebooks, notes and saved views, and the values they take and
// answer. Their services (src/notebooks/, src/notes/, src/views/) implement them.

/** The notebook as the API returns it; `cells` is a JSON string of the cells in display order. */
export type ApiNotebook = components['schemas']['Notebook'];

/** Why a notebook change was not made (the handler answers 404). */
export type NotebookMiss = 'no-cell' | 'not-discussion';

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

/** Outcome of a reply: added, or why not. */
export type ReplyOutcome = 'added' | 'no-cell' | 'not-discussion';

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
  updateCell(tenantId: string, cellId: string, change: CellChange, precondition?: Precondition): Promise<TaggedNotebook | NotebookMiss>;
  deleteCell(tenantId: string, cellId: string, precondition?: Precondition): Promise<TaggedNotebook | NotebookMiss>;
  addReply(tenantId: string, cellId: string, reply: ReplyInput, precondition?: Precondition): Promise<TaggedNotebook | NotebookMiss>;
}

/**
 * A tenant's notes. Writes take `precondition` (If-Match: 412 when it fails, also for a missing note) and answer
 * the note's new tag, or null when the note (or the cell) does not exist.
 */
export interface Notes {
  /** Summaries, most recently updated first, and the list's tag; `value` null when `isHeld` holds the tag. */
  list(tenantId: string, isHeld?: (etag: string) => boolean): Promise<TaggedRead<ApiNoteSummary[]>>;
  create(tenantId: string, note: { title: string; tags: string[]; author: string | null }): Promise<{ note: ApiNote; etag: string }>;
  /** The note with its cells and its tag, or null; `value` null when `isHeld` holds the tag. */
  read(tenantId: string, noteId: string, isHeld?: (etag: string) => boolean): Promise<TaggedRead<ApiNote> | null>;
  addCell(tenantId: string, noteId: string, cell: NewCell, precondition?: Precondition): Promise<{ cellId: string; etag: string } | null>;
  addReply(tenantId: string, noteId: string, cellId: string, reply: ReplyInput, precondition?: Precondition): Promise<{ etag: string } | Exclude<ReplyOutcome, 'added'> | 'no-note'>;
  updateMetadata(tenantId: string, noteId: string, change: { title?: string | undefined; tags?: string[] | undefined }, precondition?: Precondition): Promise<string | null>;
  updateCell(tenantId: string, noteId: string, cellId: string, change: CellChange, precondition?: Precondition): Promise<string | null>;
  /** Deletes the note with its cells; false when there is no such note. */
  delete(tenantId: string, noteId: string, precondition?: Precondition): Promise<boolean>;
  deleteCell(tenantId: string, noteId: string, cellId: string, precondition?: Precondition): Promise<string | null>;
}

/** A tenant's saved views. Writes take `precondition` (If-Match: 412 when it fails, also for a missing view). */
export interface SavedViews {
  /** The views (of one entity when given), most recently changed first, each with its tag when `withTags`; the list's tag. */
  list(tenantId: string, entity?: string, withTags?: boolean): Promise<{ etag: string; views: ApiSavedView[] }>;
  /** The new view and its tag; 400 when `params` is beyond the size limit. */
  create(tenantId: string, view: { entity: string; name: string; params: Record<string, unknown>; author?: string | undefined }): Promise<{ view: ApiSavedView; etag: string }>;
  /** The view's tag after the change (unchanged when nothing is given), or null when there is no such view. */
  update(tenantId: string, change: { viewId: string; name?: string | undefined; params?: Record<string, unknown> | undefined }, precondition?: Precondition): Promise<string | null>;
  /** False when there is no such view. */
  delete(tenantId: string, viewId: string, precondition?: Precondition): Promise<boolean>;
}
