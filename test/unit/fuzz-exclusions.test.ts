import { expect } from 'chai';
import fs from 'node:fs';
import YAML from 'yaml';

describe('operations Schemathesis does not run (contract-tests/fuzz/excluded-operations.json)', () => {
  it('are exactly the operations that answer an event stream, each with its reason', () => {
    const excluded = JSON.parse(fs.readFileSync('contract-tests/fuzz/excluded-operations.json', 'utf8')) as Record<string, string>;
    const document = YAML.parse(fs.readFileSync('openapi.yaml', 'utf8'));
    const streams: string[] = [];
    for (const item of Object.values<Record<string, any>>(document.paths)) {
      for (const op of Object.values<any>(item)) {
        if (typeof op !== 'object' || op === null || op.operationId === undefined) continue;
        if (Object.keys(op.responses?.['200']?.content ?? {}).includes('text/event-stream')) streams.push(op.operationId);
      }
    }
    expect(streams).to.deep.equal(['streamTenantEvents']);
    expect(Object.keys(excluded).sort()).to.deep.equal(streams.sort());
    for (const reason of Object.values(excluded)) expect(reason.length).to.be.greaterThan(40);
  });
});
