import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

/** The example values of one operation of openapi.yaml, by place, as a generated client takes them. */
export interface OperationExample {
  /** Path parameter examples by name. */
  path: Record<string, unknown>;
  /** Query parameter examples by name; an object example (a form-exploded parameter) stays one object. */
  query: Record<string, unknown>;
  /** The `application/json` request body example, if the operation takes a body. */
  body?: unknown;
}

type Parameter = { name: string; in: string; example?: unknown; schema?: { example?: unknown } };

/** Reads openapi.yaml and returns each operation's examples by operationId (parameters resolved through components). */
export function contractExamples(root = process.cwd()): Record<string, OperationExample> {
  const doc = YAML.parse(fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8'));
  const deref = (value: any): any => {
    if (value === null || typeof value !== 'object' || !('$ref' in value)) return value;
    const target = String(value.$ref).replace(/^#\//, '').split('/').reduce((node: any, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    return deref(target);
  };
  const examples: Record<string, OperationExample> = {};
  for (const item of Object.values<Record<string, any>>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (op === undefined) continue;
      const example: OperationExample = { path: {}, query: {} };
      for (const parameter of [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(p) as Parameter)) {
        const value = parameter.example ?? deref(parameter.schema)?.example;
        if (value === undefined) continue;
        if (parameter.in === 'path') example.path[parameter.name] = value;
        if (parameter.in === 'query') example.query[parameter.name] = value;
      }
      const body = op.requestBody === undefined ? undefined : deref(op.requestBody).content?.['application/json']?.example;
      if (body !== undefined) example.body = body;
      examples[op.operationId] = example;
    }
  }
  return examples;
}
