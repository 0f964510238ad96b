import { expect } from 'chai';
import { contractChanges, type Change } from '../../contract/compat/gate.js';
import { fixturePair, type Doc } from './fixture-contract.js';

const GET = 'GET /items/{item_id}';
const PUT = 'PUT /items/{item_id}';

/** An owner object as the contract would write it inline (a described property referring to `Name`). */
const owner = (): Doc => ({
  type: 'object',
  description: 'Who owns the item.',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { description: 'Full name.', allOf: [{ $ref: '#/components/schemas/Name' }] }, since: { type: 'string', format: 'date' } },
});

/** The fixture with `Item.owner` written inline and `ItemInput.source` an inline `anyOf` of two objects. */
function withInlineSchemas(d: Doc): void {
  d.components.schemas.Name = { type: 'string', maxLength: 100 };
  d.components.schemas.Item.properties.owner = owner();
  d.components.schemas.ItemInput.properties.source = {
    description: 'Where the item comes from.',
    anyOf: [
      { type: 'object', required: ['url'], properties: { url: { type: 'string', maxLength: 2000 } } },
      { type: 'object', required: ['owner'], properties: { owner: { description: 'Its owner.', allOf: [{ $ref: '#/components/schemas/Name' }] } } },
    ],
  };
}

/** The contract before (inline schemas) and after `move` then `change`. */
function moved(move: (d: Doc) => void, change: (d: Doc) => void = () => {}): [Doc, Doc] {
  const [before, after] = fixturePair((d) => (withInlineSchemas(d), move(d), change(d)));
  withInlineSchemas(before);
  return [before, after];
}

const relevant = (changes: Change[]) => changes.filter((change) => change.kind !== 'annotation').map((change) => `${change.kind} ${change.rule} @ ${change.operation ?? 'document'}`);
const added = (changes: Change[]) => changes.filter((change) => change.rule === 'schema-added').map((change) => change.member);

const ownerByRef = (d: Doc) => ((d.components.schemas.Owner = owner()), (d.components.schemas.Item.properties.owner = { $ref: '#/components/schemas/Owner' }));
const ownerDescribed = (d: Doc) => ((d.components.schemas.Owner = owner()), (d.components.schemas.Item.properties.owner = { description: 'Who owns the item.', allOf: [{ $ref: '#/components/schemas/Owner' }] }));
const sourceBranches = (d: Doc) => {
  const [byUrl, byOwner] = d.components.schemas.ItemInput.properties.source.anyOf;
  d.components.schemas.SourceByUrl = byUrl;
  d.components.schemas.SourceByOwner = byOwner;
  d.components.schemas.ItemInput.properties.source.anyOf = [{ $ref: '#/components/schemas/SourceByUrl' }, { $ref: '#/components/schemas/SourceByOwner' }];
};

describe('compatibility rules: an inline schema moved into components/schemas', () => {
  it('is no change to the operations when referred to with $ref, only a new schema name', () => {
    const changes = contractChanges(...moved(ownerByRef));
    expect(relevant(changes)).to.deep.equal([]);
    expect(added(changes)).to.deep.equal(['Owner']);
  });

  it('is no change to the operations when referred to with a description and a one-member allOf', () => {
    const changes = contractChanges(...moved(ownerDescribed));
    expect(relevant(changes)).to.deep.equal([]);
    expect(added(changes)).to.deep.equal(['Owner']);
  });

  it('is no change to the operations when the branches of a request anyOf are moved', () => {
    const changes = contractChanges(...moved(sourceBranches));
    expect(relevant(changes)).to.deep.equal([]);
    expect(added(changes).sort()).to.deep.equal(['SourceByOwner', 'SourceByUrl']);
  });

  it('still finds what changed in the moved schema, named where the released contract had it', () => {
    const changes = contractChanges(...moved(ownerDescribed, (d) => delete d.components.schemas.Owner.properties.since));
    expect(relevant(changes).sort()).to.deep.equal([`breaking response-property-removed @ ${GET}`, `breaking response-property-removed @ ${PUT}`]);
    const atGet = changes.find((change) => change.operation === GET && change.kind !== 'annotation');
    expect(atGet).to.include({ member: 'Item.owner.since', subject: 'since', where: 'response 200 (application/json): property `owner.since`' });
  });

  it('still finds a change inside a schema referred to from a moved anyOf branch', () => {
    const changes = contractChanges(...moved(sourceBranches, (d) => (d.components.schemas.Name.maxLength = 50)));
    expect(relevant(changes).sort()).to.deep.equal([`non-breaking response-narrowed @ ${GET}`, `non-breaking response-narrowed @ ${PUT}`, `breaking request-narrowed @ ${PUT}`].sort());
  });
});
