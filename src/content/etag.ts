import { createHash } from 'node:crypto';

/** A strong entity tag of the bytes (or text) sent: a hash of the representation, quoted. */
export function strongEtag(content: Buffer | string): string {
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, 32)}"`;
}

/** Whether an `If-None-Match` or `If-Range` header value names `etag` (weak comparison, `*` matches). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined || header.trim() === '') return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => bare(candidate) === bare(etag));
}
