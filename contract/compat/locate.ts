import type { Diff } from 'api-smart-diff';
import { SCHEMA_NAME } from './inline.js';

/** A JSON path as api-smart-diff reports it: keys of the document before the change, array indices included. */
export type DiffPath = readonly (string | number)[];

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** Where in the contract a diff lies, in the terms docs/versioning.md uses. */
export interface Location {
  /** `METHOD /path` of the operation, or null for the document itself and its components. */
  operation: string | null;
  area: 'operation' | 'parameter' | 'request-body' | 'response' | 'components' | 'document';
  /** Keys after the operation (after the parameter index, `requestBody`, or `responses/<status>`). */
  rest: DiffPath;
  /** The parameter, or the response status, the diff is about. */
  parameter?: { name: string; in: string; required: boolean };
  status?: string;
  /** Keys inside a schema (after `schema`), when the diff lies in one. */
  schema?: DiffPath;
  /** The name an entry must mention besides the operation: property, parameter, status, enum value, … (null: none). */
  subject: string | null;
  /**
   * `Schema.member` of the innermost component schema the diff lies in, when it lies in one; for a whole response
   * added or removed, the name of the response component it refers to.
   */
  member: string | null;
  /** Readable place: `response 200 (application/json) property \`distribution[].nodes\``. */
  where: string;
}

type Json = unknown;

const isObject = (value: Json): value is Record<string, Json> => value !== null && typeof value === 'object';

/** The node at `#/a/b` of `doc`. */
function resolveRef(doc: Json, ref: string): Json {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<Json>((node, key) => (isObject(node) ? node[key] : undefined), doc);
}

/**
 * Follows `$ref`s of `node` (at most a few: the contract never chains many); the component schema reached is named
 * by its `$ref` or, where the gate wrote the schema out in place (inline.ts), by its mark.
 */
function deref(doc: Json, node: Json): { node: Json; schemaName: string | null } {
  let schemaName: string | null = null;
  for (let hops = 0; hops < 16 && isObject(node) && typeof node.$ref === 'string'; hops++) {
    const match = /^#\/components\/schemas\/([^/]+)$/.exec(node.$ref);
    if (match !== null) schemaName = match[1]!;
    node = resolveRef(doc, node.$ref);
  }
  const mark = isObject(node) ? (node as { [SCHEMA_NAME]?: string })[SCHEMA_NAME] : undefined;
  return { node, schemaName: mark ?? schemaName };
}

/** Walks `path` through `doc`, following `$ref`s; the node reached (undefined when the path leaves the document) and the innermost component schema passed with the keys after it. */
function walk(doc: Json, path: DiffPath): { node: Json; schema: { name: string; keys: (string | number)[] } | null } {
  let node: Json = doc;
  let schema: { name: string; keys: (string | number)[] } | null = null;
  for (const key of path) {
    const resolved = deref(doc, node);
    if (resolved.schemaName !== null) schema = { name: resolved.schemaName, keys: [] };
    node = resolved.node;
    if (!isObject(node)) return { node: undefined, schema };
    node = (node as Record<string, Json>)[String(key)];
    schema?.keys.push(key);
  }
  return { node: deref(doc, node).node, schema };
}

/** `distribution[].nodes` from schema keys `properties/distribution/items/properties/nodes`. */
export function propertyPath(keys: DiffPath): string {
  let text = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === 'properties' && i + 1 < keys.length) text += `${text === '' ? '' : '.'}${String(keys[++i])}`;
    else if (key === 'items') text += '[]';
    else if (key === 'additionalProperties') text += '{}';
  }
  return text;
}

/** The last property name in schema keys, or null. */
function lastProperty(keys: DiffPath): string | null {
  for (let i = keys.length - 2; i >= 0; i--) if (keys[i] === 'properties') return String(keys[i + 1]);
  return null;
}

function parameterOf(value: Json): { name: string; in: string; required: boolean } | undefined {
  if (!isObject(value) || typeof value.name !== 'string' || typeof value.in !== 'string') return undefined;
  return { name: value.name, in: value.in, required: value.required === true || value.in === 'path' };
}

/** The subject and readable place of a diff inside a schema at `keys`. */
function schemaSubject(diff: Diff, keys: DiffPath): { subject: string | null; text: string } {
  const last = keys[keys.length - 1];
  const parent = keys[keys.length - 2];
  const owner = typeof last === 'number' ? keys.slice(0, -2) : parent === 'properties' ? keys : keys.slice(0, -1);
  const at = propertyPath(owner);
  const property = lastProperty(owner);
  const value = diff.action === 'add' ? diff.after : diff.before;
  if (parent === 'enum' && typeof last === 'number') {
    const shown = diff.action === 'replace' ? `${JSON.stringify(diff.before)} → ${JSON.stringify(diff.after)}` : JSON.stringify(value);
    const subject = diff.action === 'replace' ? String(diff.before) : String(value);
    return { subject, text: `${at === '' ? 'value' : `\`${at}\``} enum value ${shown}` };
  }
  if (parent === 'required' && typeof last === 'number') {
    const name = String(value);
    return { subject: name, text: `required \`${at === '' ? name : `${at}.${name}`}\`` };
  }
  if (parent === 'properties') return { subject: property, text: `property \`${at}\`` };
  const keyword = typeof last === 'number' ? `${String(parent)}[${last}]` : String(last ?? 'schema');
  return { subject: property, text: at === '' ? keyword : `\`${at}\` ${keyword}` };
}

/** Locates a diff of api-smart-diff in the two documents it compared. */
export function locate(diff: Diff, before: Json, after: Json): Location {
  const path = diff.path as DiffPath;
  // Keys of the path are the document's before the change, except below what was added.
  const inBefore = walk(before, path);
  const source = inBefore.node === undefined && diff.action === 'add' ? walk(after, path) : inBefore;
  const member = (subject: string | null): string | null => {
    const schema = source.schema;
    if (schema === null) return null;
    const inner = propertyPath(schema.keys);
    if (inner !== '') return `${schema.name}.${inner}`;
    return subject === null ? schema.name : `${schema.name}.${subject}`;
  };

  if (path.length === 1 && path[0] === 'paths' && diff.action === 'rename') {
    const [from, to] = [String(diff.before), String(diff.after)];
    return { operation: `* ${from}`, area: 'operation', rest: [], subject: to, member: null, where: `path \`${from}\` renamed \`${to}\`` };
  }
  if (path[0] !== 'paths' || path.length < 2) {
    if (path[0] === 'components' && path[1] === 'schemas' && path.length >= 3) {
      const name = String(path[2]);
      const inner = path.length > 3 ? ` \`${path.slice(3).join('.')}\`` : '';
      return { operation: null, area: 'components', rest: path.slice(1), subject: null, member: name, where: `schema \`${name}\`${inner}` };
    }
    const area = path[0] === 'components' ? 'components' : 'document';
    return { operation: null, area, rest: path, subject: null, member: null, where: path.length === 0 ? 'document' : `\`${path.join('.')}\`` };
  }
  const route = String(path[1]);
  if (path.length === 2 || !METHODS.has(String(path[2]))) {
    // a whole path item, or its path-level members: every operation on it is concerned
    return { operation: `* ${route}`, area: 'operation', rest: path.slice(2), subject: null, member: null, where: `path \`${route}\`` };
  }
  const operation = `${String(path[2]).toUpperCase()} ${route}`;
  const rest = path.slice(3);
  const head = rest[0];
  if (head === 'parameters' && rest.length === 1 && diff.action === 'add' && Array.isArray(diff.after) && diff.after.length === 1) {
    // the first parameter of an operation that had none arrives as a list of one: judged as that parameter
    const parameter = parameterOf(deref(after, diff.after[0] as Json).node);
    if (parameter !== undefined) return { operation, area: 'parameter', rest: [], parameter, subject: parameter.name, member: null, where: `${parameter.in} parameter \`${parameter.name}\`` };
  }
  if (head === 'parameters' && typeof rest[1] === 'number') {
    const whole = rest.length === 2;
    // a whole parameter may be a `$ref`, and its index counts the path item's parameters first (the differ merges
    // them), so it is resolved from its own value before it is looked up by index
    const parameter = parameterOf(whole ? (diff.action === 'add' ? deref(after, diff.after).node : deref(before, diff.before).node) : walk(before, path.slice(0, 5)).node) ??
      parameterOf(walk(after, path.slice(0, 5)).node) ?? { name: String(rest[1]), in: 'query', required: false };
    const inner = rest.slice(2);
    const label = `${parameter.in} parameter \`${parameter.name}\``;
    if (inner[0] === 'schema') {
      const sub = schemaSubject(diff, inner.slice(1));
      const isValue = sub.subject !== null && sub.subject !== lastProperty(inner.slice(1));
      return { operation, area: 'parameter', rest: inner, parameter, schema: inner.slice(1), subject: isValue ? sub.subject : parameter.name, member: null, where: `${label}: ${sub.text}` };
    }
    return { operation, area: 'parameter', rest: inner, parameter, subject: parameter.name, member: null, where: inner.length === 0 ? label : `${label} \`${inner.join('.')}\`` };
  }
  if (head === 'requestBody') {
    const inner = rest.slice(1);
    const mediaType = inner[0] === 'content' && inner.length >= 2 ? String(inner[1]) : null;
    const label = mediaType === null ? 'request body' : `request body (${mediaType})`;
    if (mediaType !== null && inner[2] === 'schema') {
      const keys = inner.slice(3);
      const sub = schemaSubject(diff, keys);
      return { operation, area: 'request-body', rest: inner, schema: keys, subject: sub.subject, member: member(sub.subject), where: `${label}: ${sub.text}` };
    }
    const subject = mediaType ?? (inner.length === 0 ? null : String(inner[0]));
    return { operation, area: 'request-body', rest: inner, subject, member: null, where: inner.length <= 2 ? label : `${label} \`${inner.slice(2).join('.')}\`` };
  }
  if (head === 'responses' && rest.length >= 2) {
    const status = String(rest[1]);
    const inner = rest.slice(2);
    if (inner[0] === 'content' && inner.length >= 2) {
      const mediaType = String(inner[1]);
      const label = `response ${status} (${mediaType})`;
      if (inner[2] === 'schema') {
        const keys = inner.slice(3);
        const sub = schemaSubject(diff, keys);
        return { operation, area: 'response', rest: inner, status, schema: keys, subject: sub.subject, member: member(sub.subject), where: `${label}: ${sub.text}` };
      }
      return { operation, area: 'response', rest: inner, status, subject: inner.length === 2 ? mediaType : status, member: null, where: inner.length === 2 ? label : `${label} \`${inner.slice(2).join('.')}\`` };
    }
    if (inner[0] === 'headers' && inner.length >= 2) {
      const header = String(inner[1]);
      const keys = inner[2] === 'schema' ? inner.slice(3) : undefined;
      return { operation, area: 'response', rest: inner, status, ...(keys === undefined ? {} : { schema: keys }), subject: header, member: null, where: `response ${status} header \`${header}\`${inner.length > 2 ? ` \`${inner.slice(2).join('.')}\`` : ''}` };
    }
    // a whole response added or removed that is a component (`$ref: '#/components/responses/MisdirectedRequest'`):
    // an entry may name the component instead of each operation that gained or lost it
    const value = diff.action === 'add' ? diff.after : diff.before;
    const component = inner.length === 0 && isObject(value) && typeof value.$ref === 'string' ? (/^#\/components\/responses\/([^/]+)$/.exec(value.$ref)?.[1] ?? null) : null;
    return { operation, area: 'response', rest: inner, status, subject: status, member: component, where: `response ${status}${inner.length === 0 ? '' : ` \`${inner.join('.')}\``}` };
  }
  return { operation, area: 'operation', rest, subject: null, member: null, where: rest.length === 0 ? 'operation' : `\`${rest.join('.')}\`` };
}
