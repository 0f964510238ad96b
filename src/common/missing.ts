/**
 * How every port says "not found": it answers a `Missing` instead of the thing, and `missing` says what was not
 * there, as a code the handler words (`'note'`, `'cell'`) or, where the port knows the words, as the detail of the
 * 404 itself (a taxonomy node, a dimension). A port never answers null, false or a bare string for it.
 */
export interface Missing<What extends string = string> {
  readonly missing: What;
}

/** Narrows a port's answer to its "not found" case. */
export const isMissing = (value: unknown): value is Missing => typeof value === 'object' && value !== null && 'missing' in value;
