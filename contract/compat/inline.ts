// Schemas as a generated client sees them: what a schema holds, not where the contract writes it. Moving an inline
// schema into `components/schemas` (and referring to it with `$ref`, or with `description` and a one-member
// `allOf`, as the contract does to describe a referenced schema) changes no generated type but its name, and the
// name is judged on its own (`schema-added`, `schema-removed`). api-smart-diff resolves `$ref`s only in some places
// and rewrites `$ref` with siblings into an `allOf` it then compares structurally, so such a move came out as
// properties removed and added; the gate therefore gives it contracts with every schema written out in place.

/** Marks a schema written out in place of a `$ref` with the component's name (`Schema.member` entries, locate.ts). */
export const SCHEMA_NAME = Symbol('component schema');

type Json = unknown;
type Node = Record<string, Json>;

const isObject = (value: Json): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);
const SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;

/** Keys that describe a schema without changing which values it takes: a one-member `allOf` beside them is that member. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'externalDocs', 'xml']);

function sameJson(a: Json, b: Json): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * `{description, allOf: [S]}` is S described: S with the description (the outer annotations win, as in generated
 * code). Other keys beside the `allOf` stay an `allOf` unless S has the same value for them.
 */
function collapseAllOf(node: Node): Node {
  const members = node.allOf;
  if (!Array.isArray(members) || members.length !== 1 || !isObject(members[0]) || typeof members[0].$ref === 'string') return node;
  const member = members[0];
  const rest = Object.entries(node).filter(([key]) => key !== 'allOf');
  if (!rest.every(([key, value]) => ANNOTATIONS.has(key) || key.startsWith('x-') || !(key in member) || sameJson(member[key], value))) return node;
  const merged: Node = { ...member, ...Object.fromEntries(rest) };
  const name = (member as { [SCHEMA_NAME]?: string })[SCHEMA_NAME];
  if (name !== undefined) Object.defineProperty(merged, SCHEMA_NAME, { value: name, enumerable: false });
  return merged;
}

/**
 * A copy of `doc` in which every `$ref` to `#/components/schemas/…` is replaced by the schema it names (its own
 * `$ref`s written out too; sibling keys kept), and every described one-member `allOf` by its member. A schema that
 * refers to itself keeps that `$ref`. Each written-out copy carries its component's name under `SCHEMA_NAME`.
 */
export function inlineSchemas<T>(doc: T): T {
  const schemas = isObject(doc) && isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const visit = (node: Json, open: readonly string[]): Json => {
    if (Array.isArray(node)) return node.map((item) => visit(item, open));
    if (!isObject(node)) return node;
    const ref = typeof node.$ref === 'string' ? SCHEMA_REF.exec(node.$ref) : null;
    const name = ref === null ? undefined : decodeURIComponent(ref[1]!.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (name !== undefined && name in schemas && !open.includes(name)) {
      const target = visit(schemas[name], [...open, name]);
      const siblings = Object.entries(node).filter(([key]) => key !== '$ref');
      const written: Node = isObject(target) ? { ...target } : {};
      for (const [key, value] of siblings) written[key] = visit(value, open);
      Object.defineProperty(written, SCHEMA_NAME, { value: name, enumerable: false });
      return collapseAllOf(written);
    }
    const copy: Node = {};
    for (const [key, value] of Object.entries(node)) copy[key] = visit(value, open);
    return collapseAllOf(copy);
  };
  return visit(doc, []) as T;
}
