import { expect } from 'chai';
import { loadContractDocument } from '../../src/contract-document.js';
import { ContractSchemas } from '../../src/contract-schemas.js';
import { authorOfNewCell, contentOfNewCell, mergeUpdates, todayUtc } from '../../src/collaboration/cell-content.js';
import { CELL_SIZE_LIMIT_BYTES, CellRules } from '../../src/collaboration/cell-rules.js';
import { projectRoot } from '../../src/project-root.js';

describe('notebook cells (src/collaboration/cell-content.ts, cell-rules.ts)', () => {
  let rules: CellRules;
  before(async () => {
    rules = new CellRules(new ContractSchemas(loadContractDocument(projectRoot()).document));
  });

  it('keeps unknown members of a new cell, drops server members, starts discussions empty and actions open', () => {
    expect(contentOfNewCell({ type: 'narrative', text: { en: 'x' }, id: 'mine', created_at: 'x', colour: 'red' })).to.deep.equal({ text: { en: 'x' }, colour: 'red' });
    expect(contentOfNewCell({ type: 'discussion', title: 'T', replies: [{ bogus: true }] })).to.deep.equal({ title: 'T', replies: [] });
    expect(contentOfNewCell({ type: 'action', text: 'do' })).to.deep.equal({ text: 'do', status: 'open' });
    expect(contentOfNewCell({ type: 'action', text: 'do', status: 'done' }).status).to.equal('done');
  });

  it('takes the request author over the cell author, and null without either', () => {
    expect(authorOfNewCell({ type: 'narrative', author: 'Cell' }, 'Request')).to.equal('Request');
    expect(authorOfNewCell({ type: 'narrative', author: 'Cell' }, undefined)).to.equal('Cell');
    expect(authorOfNewCell({ type: 'narrative' }, undefined)).to.equal(null);
  });

  it('merges updates member by member and ignores id, type and timestamps', () => {
    const merged = mergeUpdates({ content: { text: 'a', status: 'open' }, author: 'A' }, { id: 'x', type: 'narrative', created_at: 'x', status: 'done', extra: 1 }, undefined);
    expect(merged).to.deep.equal({ content: { text: 'a', status: 'done', extra: 1 }, author: 'A' });
    expect(mergeUpdates({ content: {}, author: 'A' }, { author: 'B' }, undefined).author).to.equal('B');
    expect(mergeUpdates({ content: {}, author: 'A' }, { author: 'B' }, 'C').author).to.equal('C');
  });

  it('accepts merged cells of every type and names the member that breaks a rule', () => {
    expect(rules.checkMerged({ type: 'narrative', text: { de: 'Hallo' } }, 'updates')).to.deep.equal([]);
    expect(rules.checkMerged({ type: 'view', view_id: '6f1c2b9e-8d4a-4e2f-9b1c-3a5d7e9f1b2c' }, 'updates')).to.deep.equal([]);
    expect(rules.checkMerged({ type: 'reference', ref: { kind: 'probe', id: 'probe_unbilled_cases' } }, 'updates')).to.deep.equal([]);
    expect(rules.checkMerged({ type: 'discussion', title: 'T', replies: [{ author: 'A', text: { en: 'x' }, date: '2026-11-21' }] }, 'updates')).to.deep.equal([]);
    expect(rules.checkMerged({ type: 'action', text: 'do', status: 'done', due: '2026-11-28' }, 'updates')).to.deep.equal([]);
    expect(rules.checkMerged({ type: 'action', text: 'do', status: 'later' }, 'updates')[0]).to.include({ in: 'body', name: 'updates.status' });
    expect(rules.checkMerged({ type: 'action', text: 'do', due: '2026-02-30' }, 'updates')[0]).to.include({ name: 'updates.due' });
    expect(rules.checkMerged({ type: 'narrative', text: {} }, 'updates')[0]).to.include({ name: 'updates.text' });
    expect(rules.checkMerged({ type: 'discussion', title: 'T', replies: [{ author: 'A' }] }, 'updates')[0]!.name).to.match(/^updates\.replies\.0/);
    expect(rules.checkMerged({ type: 'discussion', title: 'T', replies: {} }, 'updates')).to.deep.equal([{ in: 'body', name: 'updates.replies', message: 'must be array' }]);
    expect(rules.checkMerged({ type: 'poem' }, 'updates')[0]).to.include({ name: 'updates.type' });
  });

  it('checks of a new cell only what its request schema does not say: its size, an author taken from the caller, the view a view cell shows', () => {
    expect(rules.checkNew({ type: 'narrative', text: { en: 'x' }, author: 'A'.repeat(200) }, 'cell')).to.deep.equal([]);
    expect(rules.checkNew({ type: 'narrative', text: { en: 'x' }, author: 'A'.repeat(201) }, 'cell')).to.deep.equal([
      { in: 'body', name: 'cell.author', message: 'must NOT have more than 200 characters' },
    ]);
    expect(rules.checkNew({ type: 'view', view_id: '6f1c2b9e-8d4a-4e2f-9b1c-3a5d7e9f1b2c' }, 'cell')).to.deep.equal([]);
    expect(rules.checkNew({ type: 'view', entity: 'cost_centres', params: {} }, 'cell')).to.deep.equal([]);
    expect(rules.checkNew({ type: 'view', view_id: '6f1c2b9e-8d4a-4e2f-9b1c-3a5d7e9f1b2c', entity: 'cost_centres' }, 'cell')).to.deep.equal([]);
  });

  it('refuses a view cell, new or merged, that names neither a saved view nor an entity with its params', () => {
    const issue = { in: 'body', message: "must have property 'view_id', or both 'entity' and 'params'" };
    for (const cell of [{ type: 'view' }, { type: 'view', entity: 'cost_centres' }, { type: 'view', params: {} }, { type: 'view', author: 'A' }]) {
      expect(rules.checkNew(cell, 'cell'), JSON.stringify(cell)).to.deep.equal([{ ...issue, name: 'cell' }]);
      expect(rules.checkMerged(cell, 'updates'), JSON.stringify(cell)).to.deep.equal([{ ...issue, name: 'updates' }]);
    }
  });

  it('rejects a cell beyond the size limit, new or merged', () => {
    const params = { blob: 'x'.repeat(CELL_SIZE_LIMIT_BYTES) };
    for (const issues of [rules.checkNew({ type: 'view', entity: 'cost_centres', params }, 'cell'), rules.checkMerged({ type: 'view', entity: 'cost_centres', params }, 'updates')]) {
      expect(issues).to.have.length(1);
      expect(issues[0]!.message).to.match(/at most 65536/);
    }
  });

  it('dates replies in UTC', () => {
    expect(todayUtc(new Date('2026-11-21T23:30:00-02:00'))).to.equal('2026-11-22');
  });
});
