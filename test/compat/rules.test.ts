import { expect } from 'chai';
import { contractChanges, type Change } from '../../contract/compat/gate.js';
import { fixturePair, getItem, putItem, type Doc } from './fixture-contract.js';

const GET = 'GET /items/{item_id}';
const PUT = 'PUT /items/{item_id}';

interface RuleCase {
  /** What changes, in the words of docs/versioning.md. */
  title: string;
  change: (doc: Doc) => void;
  /** Every change that is not an annotation: `kind rule @ operation`. */
  expected: string[];
  /** api-smart-diff's own verdict where it differs from ours (our rules win), as `library-verdict @ operation`. */
  library?: string[];
}

const item = (doc: Doc) => doc.components.schemas.Item;
const input = (doc: Doc) => doc.components.schemas.ItemInput;

const CASES: RuleCase[] = [
  // breaking
  { title: 'an operation removed', change: (d) => delete d.paths['/items/{item_id}'].put, expected: [`breaking operation-removed @ ${PUT}`] },
  {
    title: 'a path renamed (a path parameter renamed)',
    change: (d) => {
      d.paths['/items/{id}'] = d.paths['/items/{item_id}'];
      delete d.paths['/items/{item_id}'];
      d.paths['/items/{id}'].get.parameters[0].name = 'id';
    },
    expected: ['breaking path-renamed @ * /items/{item_id}', `breaking parameter-renamed @ ${GET}`],
    library: ['non-breaking @ * /items/{item_id}', `non-breaking @ ${GET}`],
  },
  { title: 'an operationId changed (the generated function name)', change: (d) => (getItem(d).operationId = 'fetchItem'), expected: [`breaking operation-id-changed @ ${GET}`], library: [`annotation @ ${GET}`] },
  { title: 'a query parameter removed', change: (d) => getItem(d).parameters.splice(1, 1), expected: [`breaking parameter-removed @ ${GET}`] },
  { title: 'a required query parameter added', change: (d) => getItem(d).parameters.push({ name: 'since', in: 'query', required: true, schema: { type: 'string' } }), expected: [`breaking parameter-added-required @ ${GET}`] },
  { title: 'a parameter made required', change: (d) => (getItem(d).parameters[1].required = true), expected: [`breaking parameter-required @ ${GET}`] },
  { title: 'a parameter enum value removed (through a component)', change: (d) => (d.components.parameters.Locale.schema.enum = ['en']), expected: [`breaking enum-value-removed @ ${GET}`] },
  { title: 'a response property removed', change: (d) => delete item(d).properties.label, expected: [`breaking response-property-removed @ ${GET}`, `breaking response-property-removed @ ${PUT}`], library: [`non-breaking @ ${GET}`, `non-breaking @ ${PUT}`] },
  { title: 'a response property made optional', change: (d) => (item(d).required = ['id']), expected: [`breaking response-property-optional @ ${GET}`, `breaking response-property-optional @ ${PUT}`] },
  { title: 'a response enum value renamed', change: (d) => (item(d).properties.kind.enum = ['plain', 'extra']), expected: [`breaking enum-value-renamed @ ${GET}`, `breaking enum-value-renamed @ ${PUT}`], library: [`non-breaking @ ${GET}`, `non-breaking @ ${PUT}`] },
  { title: 'a response enum value added', change: (d) => item(d).properties.kind.enum.push('extra'), expected: [`breaking response-enum-value-added @ ${GET}`, `breaking response-enum-value-added @ ${PUT}`] },
  { title: 'a response member made nullable (a wider response type)', change: (d) => (item(d).properties.label.nullable = true), expected: [`breaking response-widened @ ${GET}`, `breaking response-widened @ ${PUT}`], library: [`non-breaking @ ${GET}`, `non-breaking @ ${PUT}`] },
  { title: 'a response type changed', change: (d) => (item(d).properties.id.type = 'integer'), expected: [`breaking type-changed @ ${GET}`, `breaking type-changed @ ${PUT}`] },
  { title: 'a required request property added', change: (d) => ((input(d).properties.owner = { type: 'string' }), (input(d).required = ['kind', 'owner'])), expected: [`breaking request-property-required @ ${PUT}`, `non-breaking request-property-added @ ${PUT}`] },
  { title: 'a request property made required', change: (d) => (input(d).required = ['kind', 'label']), expected: [`breaking request-property-required @ ${PUT}`] },
  { title: 'a request property removed (its schema refuses unknown members)', change: (d) => delete input(d).properties.count, expected: [`breaking request-property-removed @ ${PUT}`] },
  { title: 'a request enum value renamed', change: (d) => (input(d).properties.kind.enum = ['plain', 'extra']), expected: [`breaking enum-value-renamed @ ${PUT}`] },
  { title: 'a narrower request bound', change: (d) => (input(d).properties.label.maxLength = 5), expected: [`breaking request-narrowed @ ${PUT}`] },
  { title: 'a request pattern changed', change: (d) => (input(d).properties.label.pattern = '^[a-z0-9 ]+$'), expected: [`breaking constraint-changed @ ${PUT}`] },
  { title: 'a format added to a response member (the type generators pick follows it)', change: (d) => (item(d).properties.id.format = 'uuid'), expected: [`breaking format-changed @ ${GET}`, `breaking format-changed @ ${PUT}`], library: [`non-breaking @ ${GET}`, `non-breaking @ ${PUT}`] },
  { title: 'a format added to a request member', change: (d) => (input(d).properties.count.format = 'int64'), expected: [`breaking format-changed @ ${PUT}`] },
  { title: 'a request body made optional', change: (d) => (putItem(d).requestBody.required = false), expected: [`non-breaking request-body-optional @ ${PUT}`] },
  { title: 'a success status replaced (200 becomes 201)', change: (d) => ((getItem(d).responses['201'] = getItem(d).responses['200']), delete getItem(d).responses['200']), expected: [`breaking response-status-removed @ ${GET}`, `breaking success-status-added @ ${GET}`], library: [`breaking @ ${GET}`, `non-breaking @ ${GET}`] },
  { title: 'a success status added beside 200', change: (d) => (getItem(d).responses['202'] = { description: 'Accepted.' }), expected: [`breaking success-status-added @ ${GET}`], library: [`non-breaking @ ${GET}`] },
  {
    title: 'a response media type changed',
    change: (d) => {
      const content = getItem(d).responses['200'].content;
      content['application/vnd.item+json'] = content['application/json'];
      delete content['application/json'];
    },
    expected: [`breaking response-media-type-removed @ ${GET}`, `breaking response-media-type-added @ ${GET}`],
    library: [`breaking @ ${GET}`, `non-breaking @ ${GET}`],
  },
  { title: 'a response header removed', change: (d) => delete getItem(d).responses['200'].headers, expected: [`breaking response-header-removed @ ${GET}`] },
  { title: 'a security requirement added', change: (d) => (getItem(d).security = [{ bearerAuth: [] }]), expected: [`breaking access-changed @ ${GET}`] },
  { title: 'a component schema renamed (the generated type name)', change: renameItemSchema, expected: ['breaking schema-removed @ document'] },
  // not breaking
  { title: 'an operation added', change: (d) => (d.paths['/items'] = { get: { operationId: 'listItems', responses: { '200': { description: 'All.' } } } }), expected: ['non-breaking operation-added @ GET /items'] },
  { title: 'an optional query parameter added', change: (d) => getItem(d).parameters.push({ name: 'since', in: 'query', schema: { type: 'string' } }), expected: [`non-breaking parameter-added-optional @ ${GET}`] },
  { title: 'an optional request property added', change: (d) => (input(d).properties.owner = { type: 'string' }), expected: [`non-breaking request-property-added @ ${PUT}`] },
  { title: 'a request enum value added', change: (d) => input(d).properties.kind.enum.push('extra'), expected: [`non-breaking request-enum-value-added @ ${PUT}`] },
  { title: 'a wider request type (integer to number)', change: (d) => (input(d).properties.count.type = 'number'), expected: [`non-breaking request-widened @ ${PUT}`], library: [`breaking @ ${PUT}`] },
  { title: 'a wider request bound', change: (d) => (input(d).properties.label.maxLength = 50), expected: [`non-breaking request-widened @ ${PUT}`] },
  { title: 'a response property added', change: (d) => (item(d).properties.owner = { type: 'string' }), expected: [`non-breaking response-property-added @ ${GET}`, `non-breaking response-property-added @ ${PUT}`] },
  {
    title: 'a new required response property',
    change: (d) => ((item(d).properties.owner = { type: 'string' }), (item(d).required = ['id', 'kind', 'owner'])),
    expected: [`non-breaking response-property-added @ ${GET}`, `non-breaking response-property-required @ ${GET}`, `non-breaking response-property-added @ ${PUT}`, `non-breaking response-property-required @ ${PUT}`],
  },
  { title: 'a narrower response type', change: (d) => (item(d).properties.label.maxLength = 5), expected: [`non-breaking response-narrowed @ ${GET}`, `non-breaking response-narrowed @ ${PUT}`] },
  { title: 'a new error status', change: (d) => (getItem(d).responses['429'] = { description: 'Too many.', content: { 'application/problem+json': { schema: { type: 'object' } } } }), expected: [`non-breaking error-status-added @ ${GET}`] },
  { title: 'a response header added', change: (d) => (getItem(d).responses['200'].headers['Cache-Control'] = { schema: { type: 'string' } }), expected: [`non-breaking response-header-added @ ${GET}`] },
  { title: 'an operation deprecated', change: (d) => Object.assign(getItem(d), { deprecated: true, 'x-deprecated-since': '2027-01-01' }), expected: [`deprecated operation-deprecated @ ${GET}`, `deprecated deprecation-details @ ${GET}`] },
  { title: 'a parameter deprecated', change: (d) => Object.assign(getItem(d).parameters[1], { deprecated: true, 'x-deprecated-since': '2027-01-01' }), expected: [`deprecated parameter-deprecated @ ${GET}`, `deprecated deprecation-details @ ${GET}`] },
  {
    title: 'descriptions and examples (annotations)',
    change: (d) => {
      getItem(d).description = 'Reads one item.';
      item(d).properties.label.example = 'a label';
      getItem(d).responses['200'].content['application/json'].example = { id: 'x', kind: 'plain' };
      d.info.version = '1.0.1';
    },
    expected: [],
  },
];

function renameItemSchema(d: Doc): void {
  d.components.schemas.Article = d.components.schemas.Item;
  delete d.components.schemas.Item;
  getItem(d).responses['200'].content['application/json'].schema.$ref = '#/components/schemas/Article';
  putItem(d).responses['200'].content['application/json'].schema.$ref = '#/components/schemas/Article';
}

const label = (change: Change): string => `${change.kind} ${change.rule} @ ${change.operation ?? 'document'}`;

describe('compatibility rules (docs/versioning.md) over api-smart-diff', () => {
  for (const rule of CASES) {
    it(`classifies ${rule.title}`, () => {
      const changes = contractChanges(...fixturePair(rule.change));
      const relevant = changes.filter((change) => change.kind !== 'annotation');
      expect(relevant.map(label).sort()).to.deep.equal([...rule.expected].sort());
      if (rule.library !== undefined) {
        // where the library's own verdict differs, ours is the one kept
        expect(relevant.map((change) => `${change.library} @ ${change.operation ?? 'document'}`).sort()).to.deep.equal([...rule.library].sort());
      }
    });
  }

  it('finds no change between a contract and itself', () => {
    expect(contractChanges(...fixturePair(() => {}))).to.deep.equal([]);
  });

  it("names the place of a change: the operation, the member's path inside the response and its component schema", () => {
    const [change] = contractChanges(...fixturePair((d) => delete item(d).properties.tags)).filter((c) => c.operation === GET);
    expect(change).to.include({ operation: GET, subject: 'tags', member: 'Item.tags', where: 'response 200 (application/json): property `tags`' });
  });

  it('judges the first parameter of an operation that had none (a header parameter by $ref) as that parameter', () => {
    const ifMatch = { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } };
    const changes = contractChanges(
      ...fixturePair((d) => {
        d.components.parameters.IfMatch = ifMatch;
        putItem(d).parameters = [{ $ref: '#/components/parameters/IfMatch' }];
      }),
    ).filter((c) => c.operation === PUT);
    expect(changes.map(label)).to.deep.equal([`non-breaking parameter-added-optional @ ${PUT}`]);
    expect(changes[0]).to.include({ subject: 'If-Match', where: 'header parameter `If-Match`' });
  });

  it('names a parameter added to an operation whose path item has parameters of its own', () => {
    const pathLevel = (d: Doc) => {
      const item = d.paths['/items/{item_id}'];
      item.parameters = [item.get.parameters.shift()];
      d.components.parameters.IfNoneMatch = { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } };
    };
    const [before, after] = fixturePair((d) => (pathLevel(d), getItem(d).parameters.push({ $ref: '#/components/parameters/IfNoneMatch' })));
    pathLevel(before);
    const changes = contractChanges(before, after).filter((c) => c.kind !== 'annotation');
    expect(changes.map(label)).to.deep.equal([`non-breaking parameter-added-optional @ ${GET}`]);
    expect(changes[0]).to.include({ subject: 'If-None-Match', where: 'header parameter `If-None-Match`' });
  });

  it('leaves the documents it compares as they were (api-smart-diff rewrites its inputs)', () => {
    const withAllOf = (d: Doc) => (item(d).properties.input = { description: 'As sent.', allOf: [{ $ref: '#/components/schemas/ItemInput' }] });
    const [before, after] = fixturePair((d) => (withAllOf(d), (item(d).properties.owner = { type: 'string' })));
    withAllOf(before);
    const copies = [structuredClone(before), structuredClone(after)];
    contractChanges(before, after);
    expect([before, after]).to.deep.equal(copies);
  });
});
