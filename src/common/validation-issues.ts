import type { ErrorObject } from 'ajv';
import type { ValidationIssue } from './problems.js';

/** Most allowed values an enum's message names; the contract's enums have at most 9. */
const NAMED_VALUES = 12;
/** Longest text of one allowed value, and of an issue's name, in a message (the name may be a caller's member name). */
const NAME_CHARACTERS = 100;

/** `text`, cut to `NAME_CHARACTERS` with an ellipsis. */
const bounded = (text: string): string => (text.length > NAME_CHARACTERS ? `${text.slice(0, NAME_CHARACTERS - 1)}…` : text);

/**
 * An enum's message naming its allowed values (`must be one of: search, tenants, summary`), taken from the schema,
 * never from the rejected value; at most NAMED_VALUES of them, each bounded.
 */
function oneOfMessage(allowed: readonly unknown[]): string {
  const named = allowed.slice(0, NAMED_VALUES).map((value) => bounded(typeof value === 'string' ? value : JSON.stringify(value)));
  const more = allowed.length > NAMED_VALUES ? ` and ${allowed.length - NAMED_VALUES} more` : '';
  return `must be one of: ${named.join(', ')}${more}`;
}

/** Where the errors of a validator that checked one value of the body point: the member name they are under. */
export interface BodyValue {
  /** The name of the value in the body (`cell`, `updates.replies`), prefixed to every issue's name. */
  prefix: string;
}

/**
 * Ajv errors as a validation problem's `errors[]`, deduplicated. Without `within`, the errors are those of
 * openapi-backend's request schema, whose first segment says where (`/path/x`, `/query/y`, `/header/h`,
 * `/requestBody/a/b`); with it, of a schema that checked one value of the body. A missing or unexpected member is
 * named in full (`cell.title`), cut to 100 characters; an enum's message names its allowed values.
 */
export function toIssues(errors: readonly ErrorObject[], within?: BodyValue): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const segments = error.instancePath
      .split('/')
      .filter((s) => s !== '')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let where: ValidationIssue['in'] = 'body';
    if (within === undefined) {
      const root = segments.shift() ?? '';
      where = root === 'path' ? 'path' : root === 'query' ? 'query' : root === 'header' ? 'header' : 'body';
    } else if (within.prefix !== '') {
      segments.unshift(within.prefix);
    }
    const params = error.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown };
    if (params.missingProperty !== undefined) segments.push(params.missingProperty);
    if (params.additionalProperty !== undefined) segments.push(params.additionalProperty);
    const name = bounded(segments.join('.'));
    const message =
      error.keyword === 'required'
        ? 'is required'
        : error.keyword === 'additionalProperties'
          ? 'is not allowed here'
          : error.keyword === 'parse'
            ? `malformed JSON: ${error.message ?? ''}`
            : error.keyword === 'enum' && Array.isArray(params.allowedValues)
              ? oneOfMessage(params.allowedValues)
              : (error.message ?? 'is invalid');
    const key = `${where}|${name}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push({ in: where, name, message });
    }
  }
  return issues;
}
