import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

// The fast half of test/compat/generated-names.test.ts, without Java: an object schema with properties that is not
// itself a component schema becomes a model the generator names (`HealthLocal_db`, `ViewCellInput_anyOf_1`,
// `…_inner`, `…_request`). Free-form objects (no properties) become maps, and a `$ref` (alone or as a described
// one-member `allOf`) is named already.

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Places inside schema `node` (at `where`) that are inline object schemas with properties; `named` for a component's root. */
function inlineModels(node: unknown, where: string, named = false): string[] {
  if (!isNode(node) || typeof node.$ref === 'string') return [];
  const found: string[] = [];
  if (!named && isNode(node.properties) && Object.keys(node.properties).length > 0) found.push(where);
  if (isNode(node.properties)) for (const [name, property] of Object.entries(node.properties)) found.push(...inlineModels(property, `${where}.${name}`));
  if (isNode(node.items)) found.push(...inlineModels(node.items, `${where}[]`));
  if (isNode(node.additionalProperties)) found.push(...inlineModels(node.additionalProperties, `${where}{}`));
  // the members of an allOf make one model with it (the generator composes them); oneOf and anyOf members are models
  if (Array.isArray(node.allOf)) node.allOf.forEach((member, i) => found.push(...inlineModels(member, `${where} allOf[${i}]`, named)));
  for (const keyword of ['oneOf', 'anyOf']) {
    const members = node[keyword];
    if (Array.isArray(members)) members.forEach((member, i) => found.push(...inlineModels(member, `${where} ${keyword}[${i}]`)));
  }
  return found;
}

/** Every inline object schema of contract `doc` that a generator would have to name. */
function inlineModelsOf(doc: Node): string[] {
  const found: string[] = [];
  const inContent = (content: unknown, where: string) => {
    if (isNode(content)) for (const [mediaType, media] of Object.entries(content)) if (isNode(media)) found.push(...inlineModels(media.schema, `${where} (${mediaType})`));
  };
  const inParameters = (parameters: unknown, where: string) => {
    if (Array.isArray(parameters)) for (const p of parameters) if (isNode(p)) found.push(...inlineModels(p.schema, `${where} parameter ${String(p.name)}`));
  };
  const inResponses = (responses: unknown, where: string) => {
    if (!isNode(responses)) return;
    for (const [status, response] of Object.entries(responses)) {
      if (!isNode(response)) continue;
      inContent(response.content, `${where} response ${status}`);
      if (isNode(response.headers)) for (const [name, header] of Object.entries(response.headers)) if (isNode(header)) found.push(...inlineModels(header.schema, `${where} response ${status} header ${name}`));
    }
  };
  const components = isNode(doc.components) ? doc.components : {};
  if (isNode(components.schemas)) for (const [name, schema] of Object.entries(components.schemas)) found.push(...inlineModels(schema, name, true));
  if (isNode(components.parameters)) inParameters(Object.values(components.parameters), 'components');
  inResponses(components.responses, 'components');
  if (isNode(components.requestBodies)) for (const [name, body] of Object.entries(components.requestBodies)) if (isNode(body)) inContent(body.content, `request body ${name}`);
  for (const [route, item] of Object.entries(isNode(doc.paths) ? doc.paths : {})) {
    if (!isNode(item)) continue;
    inParameters(item.parameters, route);
    for (const [method, op] of Object.entries(item)) {
      if (!isNode(op) || method === 'parameters') continue;
      const label = `${method.toUpperCase()} ${route}`;
      inParameters(op.parameters, label);
      if (isNode(op.requestBody)) inContent(op.requestBody.content, `${label} request body`);
      inResponses(op.responses, label);
    }
  }
  return found;
}

const read = (file: string): Node => YAML.parse(fs.readFileSync(path.join(process.cwd(), file), 'utf8')) as Node;

describe('inline object schemas in openapi.yaml (static)', () => {
  it('has none: every object schema with properties is a component schema', () => {
    expect(inlineModelsOf(read('openapi.yaml')), 'move these into components/schemas').to.deep.equal([]);
  });

  it('finds the ones the 0.3.0 contract had (a nested property object and two anyOf branches)', () => {
    expect(inlineModelsOf(read('contract/releases/0.3.0.yaml'))).to.deep.equal(['HealthLocal.db', 'ViewCellInput anyOf[0]', 'ViewCellInput anyOf[1]']);
  });

  it('finds them in request bodies, array items and responses of operations, and not in free-form objects', () => {
    const object = { type: 'object', properties: { a: { type: 'string' } } };
    const doc = {
      paths: {
        '/x': {
          post: {
            requestBody: { content: { 'application/json': { schema: object } } },
            responses: { '200': { content: { 'application/json': { schema: { type: 'array', items: object } } } }, '400': { content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } } },
          },
        },
      },
    };
    expect(inlineModelsOf(doc)).to.deep.equal(['POST /x request body (application/json)', 'POST /x response 200 (application/json)[]']);
  });
});
