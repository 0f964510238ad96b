
/** `Cache-Control` of reads of tenant data that carry a tag: no shared cache keeps them; a browser revalidates. */
export const REVALIDATE_PRIVATELY = 'private, no-cache';

/** The headers of a tagged read of tenant data. */
export function taggedHeaders(etag: string): { ETag: string; 'Cache-Control': string } {
  return { ETag: etag, 'Cache-Control': REVALIDATE_PRIVATELY };
}

/**
 * The answer to a read whose `If-None-Match` names its current state `etag`, made without the representation: the
 * edge sends it as every 304, with the tag in the form the client holds.
 */
export function notModified(etag: string): { status: 304; headers: Record<string, string> } {
  return { status: 304, headers: taggedHeaders(etag) };
}
