import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

type Parameter = { name: string; in: string };
type Operation = { operationId: string; parameters?: (Parameter | { $ref: string })[]; requestBody?: unknown; responses: Record<string, Response | { $ref: string }> };
type Response = { headers?: Record<string, unknown>; links?: Record<string, { $ref?: string }> };
type Link = { operationId: string; parameters?: Record<string, string>; requestBody?: unknown };

const doc = YAML.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../openapi.yaml'), 'utf8'));
const deref = <T>(value: T | { $ref: string }): T =>
  value !== null && typeof value === 'object' && '$ref' in value
    ? deref((value as { $ref: string }).$ref.replace(/^#\//, '').split('/').reduce((node: any, key) => node[key], doc) as T)
    : (value as T);

/** Every operation by operationId, with the parameters of its path item and its own. */
const operations = new Map<string, { operation: Operation; parameters: Parameter[] }>();
for (const item of Object.values(doc.paths) as Record<string, unknown>[]) {
  const shared = ((item.parameters ?? []) as (Parameter | { $ref: string })[]).map((p) => deref(p));
  for (const [method, value] of Object.entries(item)) {
    if (method === 'parameters') continue;
    const operation = value as Operation;
    operations.set(operation.operationId, { operation, parameters: [...shared, ...(operation.parameters ?? []).map((p) => deref(p))] });
  }
}

/** The links of an operation's answers: name, status and the link itself. */
function linksOf(operationId: string): { name: string; link: Link }[] {
  const { operation } = operations.get(operationId)!;
  return Object.values(operation.responses).flatMap((response) =>
    Object.entries(deref(response).links ?? {}).map(([name, link]) => ({ name, link: deref(link as Link) })),
  );
}

/** Reads `$request.path.x`, `$request.query.x`, `$request.body#/x`, `$response.body#/x/y`, `$response.header.X#regex:...`. */
function checkExpression(expression: string, source: { operation: Operation; parameters: Parameter[] }, where: string): void {
  const request = /^\$request\.(path|query)\.([a-z_]+)$/.exec(expression);
  if (request !== null) {
    expect(source.parameters.map((p) => `${p.in}.${p.name}`), where).to.include(`${request[1]}.${request[2]}`);
    return;
  }
  if (expression.startsWith('$request.body#/')) {
    expect(source.operation.requestBody, where).to.not.equal(undefined);
    return;
  }
  if (expression.startsWith('$response.body#/')) return;
  const header = /^\$response\.header\.([A-Za-z-]+)(#regex:.+)?$/.exec(expression);
  expect(header, `${where}: ${expression}`).to.not.equal(null);
  const declared = Object.values(source.operation.responses).some((r) => deref(r).headers?.[header![1]!] !== undefined);
  expect(declared, `${where}: header ${header![1]} is declared`).to.equal(true);
}

describe('OpenAPI links of openapi.yaml (the stateful sequences)', () => {
  it('lead from creating each kind of thing to reading, changing and deleting it', () => {
    const targets = (operationId: string) => linksOf(operationId).map((l) => l.link.operationId).sort();
    // PUT /api/views takes its target in the body, which only an object requestBody could give (see below)
    expect(targets('createView')).to.deep.equal(['addNotebookCell', 'deleteView', 'listViews']);
    // not to a reply: only a discussion cell has a discussion (any other answers 404)
    expect(targets('addNotebookCell')).to.deep.equal(['deleteNotebookCell', 'getNotebook', 'updateNotebookCell']);
    expect(targets('addDiscussionReply')).to.deep.equal(['deleteNotebookCell', 'getNotebook', 'updateNotebookCell']);
    expect(targets('createNote')).to.deep.equal(['addToNote', 'deleteNote', 'getNote', 'listNotes', 'updateNote']);
    expect(targets('addToNote')).to.deep.equal(['deleteNote', 'getNote', 'updateNote']);
  });

  it('pass their values as parameters only: OpenAPI Generator refuses a requestBody that is not a string', () => {
    for (const [name, link] of Object.entries(doc.components.links as Record<string, Link>)) {
      expect(link.requestBody, name).to.equal(undefined);
    }
  });

  it('are named components whose expressions read what their operations have', () => {
    let count = 0;
    for (const [operationId, source] of operations) {
      for (const response of Object.values(source.operation.responses)) {
        for (const [name, ref] of Object.entries(deref(response).links ?? {})) {
          expect(ref.$ref, `${operationId} link ${name}`).to.equal(`#/components/links/${name}`);
        }
      }
      for (const { name, link } of linksOf(operationId)) {
        count++;
        const target = operations.get(link.operationId);
        expect(target, `${name}: operation ${link.operationId}`).to.not.equal(undefined);
        for (const [parameter, expression] of Object.entries(link.parameters ?? {})) {
          expect(target!.parameters.map((p) => p.name), `${name}: ${link.operationId} has ${parameter}`).to.include(parameter);
          checkExpression(expression, source, `${name}.${parameter}`);
        }
        const expressions = (value: unknown): string[] =>
          typeof value === 'string' ? (value.startsWith('$') ? [value] : []) : typeof value === 'object' && value !== null ? Object.values(value).flatMap(expressions) : [];
        for (const expression of expressions(link.requestBody)) checkExpression(expression, source, `${name}.requestBody`);
      }
    }
    expect(count).to.equal(Object.keys(doc.components.links).length);
  });
});
