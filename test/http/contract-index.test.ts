import { expect } from 'chai';
import type { ErrorObject } from 'ajv';
import { loadContractDocument } from '../../src/contract-document.js';
import { COMPONENTS_REF, ContractSchemas } from '../../src/contract-schemas.js';
import { ContractIndex } from '../../src/http/contract-index.js';
import { toIssues } from '../../src/common/validation-issues.js';

describe('contract index', () => {
  it('knows every operation of the contract with its route, rule, body media types and declared problems', async () => {
    const document = loadContractDocument(process.cwd()).document;
    const index = await ContractIndex.build(document, new ContractSchemas(document));
    const jumpbar = index.operation('getJumpbar');
    expect(jumpbar.route).to.equal('/api/jumpbar');
    expect(jumpbar.bodyMediaTypes).to.equal(null);
    expect(jumpbar.responses['200']!.mediaTypes).to.deep.equal(['application/json']);
    expect(jumpbar.responses['200']!.problem).to.equal(false);
    expect(jumpbar.responses['400']).to.include({ problem: true, problemSchema: 'Problem' });
    expect(index.match('GET', '/api/jumpbar')?.operationId).to.equal('getJumpbar');
    expect(index.match('GET', '/no/such/route')).to.equal(null);
    expect(index.match('DELETE', '/api/jumpbar')).to.equal(null);
    expect(index.allowedMethods('/api/jumpbar')).to.deep.equal(['GET']);
    expect(index.allowedMethods('/no/such/route')).to.deep.equal([]);
    for (const operation of index.operations.values()) expect(operation.rule.operationId, operation.route).to.equal(operation.operationId);
    expect(() => index.operation('noSuchOperation')).to.throw(/has no operation noSuchOperation/);
  });

  it('compiles a component validator once, on one Ajv, reporting every error of a value', () => {
    const schemas = new ContractSchemas(loadContractDocument(process.cwd()).document);
    const problem = schemas.componentValidator('Problem');
    expect(schemas.componentValidator('Problem')).to.equal(problem);
    expect(problem({ type: 'about:blank', title: 'x', status: 400, detail: 'y' })).to.equal(true);
    expect(problem({ status: 'four hundred' })).to.equal(false);
    expect(problem.errors!.length).to.be.greaterThan(1);
    const problems = schemas.compile({ type: 'array', items: { $ref: `${COMPONENTS_REF}Problem` } });
    expect(problems([{ type: 'about:blank', title: 'x', status: 400, detail: 'y' }])).to.equal(true);
    expect(problems([{ status: 'four hundred' }])).to.equal(false);
    expect(() => schemas.componentValidator('NoSuchSchema')).to.throw(/has no schema NoSuchSchema/);
  });
});

describe('validation issues', () => {
  const error = (instancePath: string, keyword: string, params: object, message = 'must be string'): ErrorObject => ({ instancePath, keyword, params, schemaPath: '#', message });

  it("names where an issue of openapi-backend's request schema is, from its first segment", () => {
    const issues = toIssues([
      error('/query/mode', 'enum', { allowedValues: ['search', 'tenants', 'summary'] }, 'must be equal to one of the allowed values'),
      error('/requestBody', 'required', { missingProperty: 'title' }),
      error('/requestBody/a~1b', 'additionalProperties', { additionalProperty: 'x' }),
      error('/requestBody', 'required', { missingProperty: 'title' }),
    ]);
    expect(issues).to.deep.equal([
      { in: 'query', name: 'mode', message: 'must be one of: search, tenants, summary' },
      { in: 'body', name: 'title', message: 'is required' },
      { in: 'body', name: 'a/b.x', message: 'is not allowed here' },
    ]);
  });

  it('keeps a message and a name bounded: at most 12 allowed values, 100 characters of a value or a name', () => {
    const many = Array.from({ length: 40 }, (_, i) => `value${i}`);
    const [listed] = toIssues([error('/query/kind', 'enum', { allowedValues: many })]);
    expect(listed!.message).to.equal(`must be one of: ${many.slice(0, 12).join(', ')} and 28 more`);
    const [long] = toIssues([error('/requestBody/k', 'enum', { allowedValues: ['v'.repeat(500), null, 3] })]);
    expect(long!.message).to.equal(`must be one of: ${'v'.repeat(99)}…, null, 3`);
    const [unexpected] = toIssues([error('/requestBody', 'additionalProperties', { additionalProperty: 'k'.repeat(100_000) })]);
    expect(unexpected!.name).to.equal(`${'k'.repeat(99)}…`);
  });

  it('names an issue of one value of the body under that value', () => {
    expect(toIssues([error('/replies/0', 'type', {}), error('', 'required', { missingProperty: 'text' })], { prefix: 'cell' })).to.deep.equal([
      { in: 'body', name: 'cell.replies.0', message: 'must be string' },
      { in: 'body', name: 'cell.text', message: 'is required' },
    ]);
  });
});
