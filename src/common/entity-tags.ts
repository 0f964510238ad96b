import { createHash } from 'node:crypto';
import { invalidRequest, preconditionFailed } from './problems.js';

/*
 * Entity tags (RFC 9110, section 8.8.3) and the conditions on them (section 13), in one place. A tag names the state
 * of a resource; the compressed representations of that state carry it with a suffix naming the coding (`"abc"`
 * identity, `"abc-gzip"`, `"abc-br"`; see src/http/compression.ts). Comparisons accept the tag in any of these
 * forms: a client that received the gzip form holds the same state as one that received the identity form.
 */

/** The content codings the server compresses with, and the suffix each adds to an entity tag. */
export const CODING_SUFFIXES = { gzip: '-gzip', br: '-br' } as const;

/** A strong entity tag of the bytes (or text) of a representation: a hash of them, quoted. */
export function strongEtag(content: Buffer | string): string {
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, 32)}"`;
}

/** The tag of representation `coding` of the state tagged `etag`: `"abc"` → `"abc-gzip"`. Weak tags stay weak. */
export function codedTag(etag: string, coding: keyof typeof CODING_SUFFIXES): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}${CODING_SUFFIXES[coding]}"` : etag;
}

/** The forms a client may hold of the strong tag `etag`: identity and every coded one. */
function formsOf(etag: string): string[] {
  return [etag, codedTag(etag, 'gzip'), codedTag(etag, 'br')];
}

const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/** The entity tags of an `If-Match` or `If-None-Match` value, `'*'`, or null when the value is not of that form. */
export function parseTagList(header: string): string[] | '*' | null {
  const value = header.trim();
  if (value === '*') return '*';
  const tags = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (tags.length === 0 || !tags.every((t) => ENTITY_TAG.test(t))) return null;
  return tags;
}

/**
 * For `If-None-Match` (weak comparison): the tag the client holds that names the current state `etag`, which a
 * 304 sends back as its `ETag`; `etag` itself for `*`; null when none does (or the header is absent or malformed,
 * which RFC 9110 lets a server ignore).
 */
export function heldTag(header: string | undefined, etag: string): string | null {
  if (header === undefined || header.trim() === '') return null;
  const tags = parseTagList(header);
  if (tags === null) return null;
  if (tags === '*') return etag;
  const forms = formsOf(etag.replace(/^W\//, ''));
  for (const tag of tags) {
    const bare = tag.replace(/^W\//, '');
    if (forms.includes(bare)) return bare;
  }
  return null;
}

/**
 * Whether a request's `If-None-Match` names a state: for a read that skips its work when the client holds the
 * current tag (the answer is then the 304 the edge makes, with `heldTag`).
 */
export function ifNoneMatchOf(headers: Readonly<Record<string, string | undefined>>): (etag: string) => boolean {
  return (etag) => heldTag(headers['if-none-match'], etag) !== null;
}

/** For `If-Range` (strong comparison, one tag): whether it names the current state `etag` of a representation. */
export function rangeTagHolds(header: string, etag: string): boolean {
  const tag = header.trim();
  return !tag.startsWith('W/') && !etag.startsWith('W/') && tag === etag;
}

/**
 * An `If-Match` precondition: given the current tag of the target (null when it does not exist), whether the
 * write may go on. Strong comparison: a weak tag never matches; `*` matches any existing target.
 */
export type Precondition = (current: string | null) => boolean;

/** The precondition of a request's `If-Match` header; undefined without one; 400 when it is malformed. */
export function ifMatchOf(headers: Readonly<Record<string, string | undefined>>): Precondition | undefined {
  const header = headers['if-match'];
  if (header === undefined) return undefined;
  const tags = parseTagList(header);
  if (tags === null) {
    throw invalidRequest([{ in: 'header', name: 'If-Match', message: 'must be "*" or a comma-separated list of entity tags ("…")' }]);
  }
  if (tags === '*') return (current) => current !== null;
  return (current) => current !== null && tags.some((tag) => !tag.startsWith('W/') && formsOf(current).includes(tag));
}

/** Throws the 412 problem unless the state tagged `current` of `what` satisfies `precondition` (always, without one). */
export function assertPrecondition(precondition: Precondition | undefined, what: string, current: string | null): void {
  if (precondition !== undefined && !precondition(current)) throw preconditionFailed(what, current);
}

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
