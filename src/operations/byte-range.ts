/** What a `Range` header asks of a representation of `size` bytes. */
export type RangeRequest =
  /** No usable single range: send the whole representation (no header, malformed, several ranges, other unit). */
  | { kind: 'whole' }
  /** Send bytes `start`..`end` inclusive (`end` already cut at the last byte). */
  | { kind: 'part'; start: number; end: number }
  /** The range starts beyond the end (or asks for an empty suffix): 416. */
  | { kind: 'unsatisfiable' };

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/i;

/**
 * Interprets a `Range` header (RFC 9110 section 14) for one range: `bytes=a-b`, `bytes=a-`, `bytes=-n`.
 * Several ranges, another unit or a malformed value answer the whole representation, as RFC 9110 allows.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const match = SINGLE_RANGE.exec(header.trim().replace(/\s+/g, ''));
  if (match === null) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    const suffix = Number(last);
    if (!Number.isSafeInteger(suffix)) return { kind: 'whole' };
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: Math.min(end, size - 1) };
}
