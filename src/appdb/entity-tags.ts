import { createHash } from 'node:crypto';

/*
 * Entity tags of what the app database holds, derived from stored data only (never from process memory), so that
 * every instance sharing the database tags the same state alike. A row's tag hashes what names it (kind, ID,
 * creation time: a row deleted and made again under the same ID gets other tags) and its revision, which every
 * write raises; a list's tag hashes the tags of its rows in their order. Both cost a hash over what the read
 * fetches anyway.
 */

const quoted = (parts: readonly string[]): string => `"${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 27)}"`;

/** What a row's tag is derived from. */
export interface Revisioned {
  revision: number;
  createdAt: string;
}

/** The strong tag of one notebook, note or view in its current revision. */
export function rowTag(kind: 'notebook' | 'note' | 'view', id: string, row: Revisioned): string {
  return quoted([kind, id, row.createdAt, String(row.revision)]);
}

/** The strong tag of a list: which rows it holds, in which order, each in which revision (`scope` names the list). */
export function listTag(scope: readonly string[], rowTags: readonly string[]): string {
  return quoted([...scope, ...rowTags]);
}
