import type { components } from '../../generated/openapi.js';
import type { CellRow } from '../appdb/cell.entity.js';

/** A cell as a request sends it (`CellInput`). */
export type CellInput = components['schemas']['CellInput'];
/** A stored cell as the API returns it (`Cell`). */
export type ApiCell = components['schemas']['Cell'];
/** A reply as stored in a discussion cell (`DiscussionReply`). */
export type DiscussionReply = components['schemas']['DiscussionReply'];

/** Members the server sets; the rest of a cell is its content. */
const SERVER_MEMBERS = new Set(['id', 'type', 'author', 'created_at', 'updated_at']);
/** Members `updates` cannot change (the contract's `UpdateCellRequest`). */
const FIXED_MEMBERS = new Set(['id', 'type', 'created_at', 'updated_at']);

/** The content of a new cell: a discussion starts without replies, an action is `open` unless given. */
export function contentOfNewCell(input: Record<string, unknown>): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) if (!SERVER_MEMBERS.has(name)) content[name] = value;
  if (input.type === 'discussion') content.replies = [];
  if (input.type === 'action' && content.status === undefined) content.status = 'open';
  return content;
}

/** The author of a new cell: the request's, else the cell's own, else null. */
export function authorOfNewCell(input: Record<string, unknown>, requestAuthor: string | undefined): string | null {
  if (requestAuthor !== undefined) return requestAuthor;
  return typeof input.author === 'string' ? input.author : null;
}

/** `updates` merged into a cell: each member replaces the one of that name; id, type and timestamps stay. */
export function mergeUpdates(
  row: Pick<CellRow, 'content' | 'author'>,
  updates: Record<string, unknown>,
  requestAuthor: string | undefined,
): { content: Record<string, unknown>; author: string | null } {
  const content = { ...row.content };
  let author = row.author;
  for (const [name, value] of Object.entries(updates)) {
    if (FIXED_MEMBERS.has(name)) continue;
    // a non-string author is left for the cell rules to reject (400), null clears it
    if (name === 'author') author = value as string | null;
    else content[name] = value;
  }
  return { content, author: requestAuthor ?? author };
}

/** The cell as the rules check it: type, content and (when set) author. */
export function checkableCell(type: string, content: Record<string, unknown>, author: string | null): Record<string, unknown> {
  return author === null ? { type, ...content } : { type, ...content, author };
}

/** A stored cell row as the API returns it. */
export function toApiCell(row: CellRow): ApiCell {
  return { id: row.cellId, type: row.type, ...row.content, author: row.author, created_at: row.createdAt, updated_at: row.updatedAt } as ApiCell;
}

/** Today's date (UTC) as `YYYY-MM-DD`. */
export const todayUtc = (now: Date): string => now.toISOString().slice(0, 10);
