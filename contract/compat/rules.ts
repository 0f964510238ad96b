import type { Diff } from 'api-smart-diff';
import type { DiffPath, Location } from './locate.js';

/** What a change means for a client generated from the older contract (docs/versioning.md). */
export type Kind = 'breaking' | 'non-breaking' | 'deprecated' | 'annotation';

/** A change's kind and the rule of docs/versioning.md that decided it. */
export interface Verdict {
  kind: Kind;
  rule: string;
}

type Direction = 'request' | 'response';

const ANNOTATIONS = new Set(['description', 'summary', 'title', 'example', 'examples', 'externalDocs', 'tags', 'xml']);
const DEPRECATION_DETAILS = new Set(['x-deprecated-since', 'x-sunset', 'x-deprecation-link']);
const UPPER_BOUNDS = new Set(['maxLength', 'maxItems', 'maximum', 'maxProperties']);
const LOWER_BOUNDS = new Set(['minLength', 'minItems', 'minimum', 'minProperties']);
const FLAGS_THAT_NARROW = new Set(['exclusiveMaximum', 'exclusiveMinimum', 'uniqueItems']);
const OPAQUE_CONSTRAINTS = new Set(['pattern', 'multipleOf']);
const SERIALIZATION = new Set(['style', 'explode', 'allowReserved', 'allowEmptyValue', 'content', 'name', 'in']);

/**
 * Non-breaking rules that still break a generator's clients of earlier releases, each with what its integrators do: an
 * option to generate with, or regenerate (docs/versioning.md, "Generator by generator").
 */
export const GENERATOR_DEFAULTS: Readonly<Record<string, readonly string[]>> = {
  'response-property-added': ['java okhttp-gson (regenerate; library native should read it)', 'go (regenerate)'],
  'response-property-required': ['java okhttp-gson (regenerate; library native should read it)', 'go (regenerate)'],
  'parameter-added-optional': ['java (useSingleRequestParameter=true)'],
};

const verdict = (kind: Kind, rule: string): Verdict => ({ kind, rule });
const is2xx = (status: string | undefined): boolean => status !== undefined && /^2(\d\d|XX)$/.test(status);
const isAnnotationKey = (key: unknown): boolean => typeof key === 'string' && (ANNOTATIONS.has(key) || (key.startsWith('x-') && !DEPRECATION_DETAILS.has(key) && key !== 'x-required-role'));

/** True when `keys` (inside a schema) pass through an annotation such as `example`: no client reads those. */
function inSchemaAnnotation(keys: DiffPath): boolean {
  return keys.some((key, i) => keys[i - 1] !== 'properties' && isAnnotationKey(key));
}

/** True when `rest` (after the operation, a parameter or a status) passes through an annotation before any schema. */
function inAnnotation(rest: DiffPath): boolean {
  const end = rest.indexOf('schema');
  const keys = end === -1 ? rest : rest.slice(0, end);
  return keys.some((key, i) => keys[i - 1] !== 'content' && keys[i - 1] !== 'headers' && isAnnotationKey(key));
}

/** Narrowing a request refuses what old clients send; widening a response sends what old clients cannot read. */
function bySize(direction: Direction, narrower: boolean): Verdict {
  if (direction === 'request') return narrower ? verdict('breaking', 'request-narrowed') : verdict('non-breaking', 'request-widened');
  return narrower ? verdict('non-breaking', 'response-narrowed') : verdict('breaking', 'response-widened');
}

/** Classifies a diff inside a schema (`keys` after `schema`) of a request or a response. */
export function classifySchema(diff: Diff, keys: DiffPath, direction: Direction): Verdict {
  const last = keys[keys.length - 1];
  const parent = keys[keys.length - 2];
  const { action } = diff;
  if (keys.length === 0) return verdict('breaking', 'schema-replaced');
  if (inSchemaAnnotation(keys)) return verdict('annotation', 'annotation');
  if (parent === 'properties' && typeof last === 'string' && keys[keys.length - 3] !== 'properties') {
    if (action === 'add') return verdict('non-breaking', `${direction}-property-added`);
    if (action === 'remove') return verdict('breaking', `${direction}-property-removed`);
    return verdict('breaking', `${direction}-property-renamed`);
  }
  if (parent === 'required' && typeof last === 'number') {
    if (action === 'replace') return verdict('breaking', `${direction}-required-changed`);
    const nowRequired = action === 'add';
    if (direction === 'request') return nowRequired ? verdict('breaking', 'request-property-required') : verdict('non-breaking', 'request-property-optional');
    return nowRequired ? verdict('non-breaking', 'response-property-required') : verdict('breaking', 'response-property-optional');
  }
  if (parent === 'enum' && typeof last === 'number') {
    if (action === 'add') return direction === 'request' ? verdict('non-breaking', 'request-enum-value-added') : verdict('breaking', 'response-enum-value-added');
    return verdict('breaking', action === 'remove' ? 'enum-value-removed' : 'enum-value-renamed');
  }
  if ((parent === 'oneOf' || parent === 'anyOf') && typeof last === 'number') {
    if (action === 'replace') return verdict('breaking', 'schema-replaced');
    return bySize(direction, action === 'remove');
  }
  if (typeof last !== 'string') return verdict('breaking', 'schema-replaced');
  if (isAnnotationKey(last)) return verdict('annotation', 'annotation');
  if (last === 'deprecated') return verdict(diff.after === true ? 'deprecated' : 'non-breaking', 'property-deprecated');
  if (last === 'enum' || last === 'oneOf' || last === 'anyOf') {
    // a whole list added restricts the values; a whole list removed allows any
    if (action === 'replace') return verdict('breaking', 'schema-replaced');
    return bySize(direction, action === 'add');
  }
  if (last === 'type') {
    if (direction === 'request' && diff.before === 'integer' && diff.after === 'number') return verdict('non-breaking', 'request-widened');
    return verdict('breaking', 'type-changed');
  }
  // generators pick the type by the format (number: float32 or BigDecimal, double: float64 or Double; uuid, date-time)
  if (last === 'format') return verdict('breaking', 'format-changed');
  if (last === 'nullable') return bySize(direction, diff.after !== true);
  if (UPPER_BOUNDS.has(last)) {
    if (action === 'replace') return bySize(direction, Number(diff.after) < Number(diff.before));
    return bySize(direction, action === 'add');
  }
  if (LOWER_BOUNDS.has(last)) {
    if (action === 'replace') return bySize(direction, Number(diff.after) > Number(diff.before));
    return bySize(direction, action === 'add');
  }
  if (FLAGS_THAT_NARROW.has(last)) return bySize(direction, diff.after === true);
  if (OPAQUE_CONSTRAINTS.has(last)) {
    if (action === 'replace') return verdict('breaking', 'constraint-changed');
    return bySize(direction, action === 'add');
  }
  if (last === 'additionalProperties') {
    // clients ignore members they do not know, so what a response may add is no promise (docs/versioning.md)
    if (direction === 'response') return verdict('non-breaking', 'response-additional-properties');
    return bySize('request', diff.after === false);
  }
  if (last === 'default') {
    if (direction === 'response') return verdict('annotation', 'annotation');
    return action === 'add' ? verdict('non-breaking', 'request-default-added') : verdict('breaking', 'request-default-changed');
  }
  return verdict('breaking', 'schema-changed');
}

function classifyParameter(diff: Diff, where: Location): Verdict {
  const rest = where.rest;
  const parameter = where.parameter!;
  if (rest.length === 0) {
    if (diff.action === 'add') return parameter.required ? verdict('breaking', 'parameter-added-required') : verdict('non-breaking', 'parameter-added-optional');
    if (diff.action === 'remove') return verdict('breaking', 'parameter-removed');
    return verdict('breaking', 'parameter-renamed');
  }
  const key = rest[0];
  if (key === 'schema') return classifySchema(diff, rest.slice(1), 'request');
  if (key === 'required') return diff.after === true ? verdict('breaking', 'parameter-required') : verdict('non-breaking', 'parameter-optional');
  if (key === 'deprecated') return verdict(diff.after === true ? 'deprecated' : 'non-breaking', 'parameter-deprecated');
  if (typeof key === 'string' && DEPRECATION_DETAILS.has(key)) return verdict('deprecated', 'deprecation-details');
  if (typeof key === 'string' && SERIALIZATION.has(key)) return verdict('breaking', key === 'name' || key === 'in' ? 'parameter-renamed' : 'parameter-serialization-changed');
  if (isAnnotationKey(key)) return verdict('annotation', 'annotation');
  return verdict('breaking', 'parameter-changed');
}

function classifyRequestBody(diff: Diff, where: Location): Verdict {
  const rest = where.rest;
  if (rest.length === 0) {
    if (diff.action === 'add') return isObjectWith(diff.after, 'required', true) ? verdict('breaking', 'request-body-added-required') : verdict('non-breaking', 'request-body-added-optional');
    return verdict('breaking', 'request-body-removed');
  }
  if (rest[0] === 'required') return diff.after === true ? verdict('breaking', 'request-body-required') : verdict('non-breaking', 'request-body-optional');
  if (rest[0] === 'content' && rest.length === 2) return diff.action === 'add' ? verdict('non-breaking', 'request-media-type-added') : verdict('breaking', 'request-media-type-removed');
  if (rest[0] === 'content' && rest.length === 1) return verdict('breaking', 'request-media-type-removed');
  if (where.schema !== undefined) return classifySchema(diff, where.schema, 'request');
  if (isAnnotationKey(rest[rest.length - 1]) || isAnnotationKey(rest[0])) return verdict('annotation', 'annotation');
  return verdict('breaking', 'request-body-changed');
}

function classifyResponse(diff: Diff, where: Location): Verdict {
  const rest = where.rest;
  if (rest.length === 0) {
    // @hey-api/openapi-ts takes `default` for one more success: the type of `data` widens by its body
    if (diff.action === 'add' && where.status === 'default') return verdict('breaking', 'default-response-added');
    if (diff.action === 'add') return is2xx(where.status) ? verdict('breaking', 'success-status-added') : verdict('non-breaking', 'error-status-added');
    return verdict('breaking', 'response-status-removed');
  }
  if (rest[0] === 'content' && rest.length <= 2) return verdict('breaking', diff.action === 'add' ? 'response-media-type-added' : 'response-media-type-removed');
  if (rest[0] === 'headers' && rest.length <= 2) {
    if (rest.length === 1 && diff.action === 'replace') return verdict('breaking', 'response-header-removed');
    return diff.action === 'add' ? verdict('non-breaking', 'response-header-added') : verdict('breaking', 'response-header-removed');
  }
  if (where.schema !== undefined) return classifySchema(diff, where.schema, 'response');
  if (isAnnotationKey(rest[rest.length - 1]) || isAnnotationKey(rest[0]) || rest[0] === 'links') return verdict('annotation', 'annotation');
  return verdict('breaking', 'response-changed');
}

function classifyOperation(diff: Diff, where: Location): Verdict {
  const rest = where.rest;
  const key = rest[0];
  if (where.operation?.startsWith('* ')) {
    // the path item itself: renamed (a different URL or path parameter names) or one of its path-level members
    if (rest.length === 0) return diff.action === 'add' ? verdict('non-breaking', 'operation-added') : verdict('breaking', diff.action === 'remove' ? 'operation-removed' : 'path-renamed');
    if (isAnnotationKey(key)) return verdict('annotation', 'annotation');
    return verdict('breaking', 'path-changed');
  }
  if (rest.length === 0) return diff.action === 'add' ? verdict('non-breaking', 'operation-added') : verdict('breaking', 'operation-removed');
  if (key === 'operationId') return verdict('breaking', 'operation-id-changed');
  if (key === 'deprecated') return verdict(diff.after === true ? 'deprecated' : 'non-breaking', 'operation-deprecated');
  if (typeof key === 'string' && DEPRECATION_DETAILS.has(key)) return verdict('deprecated', 'deprecation-details');
  if (key === 'security' || key === 'x-required-role') return diff.action === 'remove' ? verdict('non-breaking', 'access-relaxed') : verdict('breaking', 'access-changed');
  if (key === 'parameters' && rest.length === 1) return verdict('breaking', 'parameter-removed');
  if (isAnnotationKey(key)) return verdict('annotation', 'annotation');
  return verdict('breaking', 'operation-changed');
}

function isObjectWith(value: unknown, key: string, expected: unknown): boolean {
  return value !== null && typeof value === 'object' && (value as Record<string, unknown>)[key] === expected;
}

/**
 * Classifies one diff of api-smart-diff by the rules of docs/versioning.md. The library's own verdict is not used:
 * it calls a removed response property or a renamed response enum value non-breaking and a changed operationId an
 * annotation, where generated clients break (test/compat/rules.test.ts has each case).
 */
export function classify(diff: Diff, where: Location): Verdict {
  if (where.area !== 'components' && where.area !== 'document' && inAnnotation(where.rest)) return verdict('annotation', 'annotation');
  switch (where.area) {
    case 'parameter':
      return classifyParameter(diff, where);
    case 'request-body':
      return classifyRequestBody(diff, where);
    case 'response':
      return classifyResponse(diff, where);
    case 'operation':
      return classifyOperation(diff, where);
    case 'components':
      // a schema's name is the name of its generated type; what it holds is judged where operations use it
      if (where.rest.length === 2 && where.rest[0] === 'schemas') {
        return diff.action === 'add' ? verdict('annotation', 'schema-added') : verdict('breaking', 'schema-removed');
      }
      return verdict('annotation', 'component-changed');
    case 'document': {
      const key = where.rest[0];
      if (key === 'security') return diff.action === 'remove' ? verdict('non-breaking', 'access-relaxed') : verdict('breaking', 'access-changed');
      if (key === 'paths' && diff.action === 'rename') return verdict('breaking', 'path-renamed');
      return verdict('annotation', 'annotation');
    }
  }
}
