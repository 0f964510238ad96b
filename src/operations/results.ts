import { heldTag } from '../common/entity-tags.js';
import { Problem, PROBLEMS, type ProblemBody, type ProblemCode } from '../common/problems.js';

type StatusOfCode<C extends ProblemCode> = (typeof PROBLEMS)[C]['status'];

/** A typed problem result, for failures that belong to one operation (unknown finding, conflict…). */
export function problemResult<C extends ProblemCode>(
  code: C,
  detail: string,
): { status: StatusOfCode<C>; contentType: 'application/problem+json'; body: ProblemBody } {
  const problem = new Problem(code, detail);
  return { status: problem.status as StatusOfCode<C>, contentType: 'application/problem+json', body: problem.toBody() };
}

/** `Cache-Control` of reads of tenant data that carry a tag: no shared cache keeps them; a browser revalidates. */
export const REVALIDATE_PRIVATELY = 'private, no-cache';

/** The headers of a tagged read of tenant data. */
export function taggedHeaders(etag: string): { ETag: string; 'Cache-Control': string } {
  return { ETag: etag, 'Cache-Control': REVALIDATE_PRIVATELY };
}

/** Whether a request's `If-None-Match` names the state `etag`, for a read that skips its work when it does. */
export function holdsTag(headers: Readonly<Record<string, string | undefined>>): (etag: string) => boolean {
  return (etag) => heldTag(headers['if-none-match'], etag) !== null;
}

/**
 * The answer to a read whose `If-None-Match` names its current state `etag`, made without the representation: the
 * edge sends it as every 304, with the tag in the form the client holds.
 */
export function notModified(etag: string): { status: 304; headers: Record<string, string> } {
  return { status: 304, headers: taggedHeaders(etag) };
}
