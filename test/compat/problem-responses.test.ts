import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { contractChanges, generatorDefaultsNote } from '../../contract/compat/gate.js';
import { GENERATOR_DEFAULTS } from '../../contract/compat/rules.js';
import { fixturePair, getItem, type Doc } from './fixture-contract.js';

// Generated clients give the caller the problem object only for statuses the contract declares with it (go and
// python decode declared statuses only; typescript-fetch and java hand over the raw body): docs/versioning.md,
// "Problems in generated clients". A `default` response would serve go and python, but @hey-api/openapi-ts takes
// it for a success.

const PROBLEM = 'application/problem+json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
/** Error statuses that keep another shape, each described where it is declared. */
const NOT_PROBLEMS = new Set(['GET /health 503', 'GET /health/ready 503']);

const doc = YAML.parse(fs.readFileSync(path.join(process.cwd(), 'openapi.yaml'), 'utf8')) as Doc;
const responseOf = (response: Doc): Doc => (typeof response.$ref === 'string' ? doc.components.responses[response.$ref.split('/').pop()!] : response);
const operations = Object.entries<Doc>(doc.paths).flatMap(([route, item]) =>
  METHODS.filter((method) => item[method] !== undefined).map((method) => ({ label: `${method.toUpperCase()} ${route}`, op: item[method] as Doc })),
);

describe('problem responses in openapi.yaml', () => {
  it('has operations to check', () => expect(operations.length).to.be.above(40));

  it('declares 500 on every operation, from components/responses, and no default response', () => {
    expect(operations.filter(({ op }) => op.responses['500']?.$ref !== '#/components/responses/InternalError').map(({ label }) => label)).to.deep.equal([]);
    expect(operations.filter(({ op }) => op.responses.default !== undefined).map(({ label }) => label)).to.deep.equal([]);
  });

  it('declares every 4xx and 5xx as application/problem+json with the schema Problem, and nothing else', () => {
    const wrong: string[] = [];
    for (const { label, op } of operations) {
      for (const [status, declared] of Object.entries<Doc>(op.responses)) {
        if (!/^[45]\d\d$/.test(status) || NOT_PROBLEMS.has(`${label} ${status}`)) continue;
        const content = responseOf(declared).content ?? {};
        if (Object.keys(content).join() !== PROBLEM || content[PROBLEM].schema?.$ref !== '#/components/schemas/Problem') wrong.push(`${label} ${status}: ${JSON.stringify(content).slice(0, 120)}`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('refers to a response component for every problem status but the ones described on the operation', () => {
    const inline = operations.flatMap(({ label, op }) =>
      Object.entries<Doc>(op.responses)
        .filter(([status, declared]) => /^[45]\d\d$/.test(status) && declared.$ref === undefined)
        .map(([status]) => `${label} ${status}`),
    );
    // each of these says on the operation what its status means there
    expect(inline.sort()).to.deep.equal(['GET /health 503', 'GET /health/ready 503', 'POST /api/explain-narrative 503']);
  });
});

describe('compatibility rules: a default response', () => {
  const label = (changes: ReturnType<typeof contractChanges>) => changes.filter((c) => c.kind !== 'annotation').map((c) => `${c.kind} ${c.rule} @ ${c.operation}`);

  it('added is breaking, even as a problem: @hey-api/openapi-ts widens the type of a success by it', () => {
    const problem = { description: 'Any other status.', content: { [PROBLEM]: { schema: { type: 'object' } } } };
    expect(label(contractChanges(...fixturePair((d) => (getItem(d).responses.default = problem))))).to.deep.equal(['breaking default-response-added @ GET /items/{item_id}']);
  });

  it('is not needed for a 5xx problem: a new 500 is a new error status, not breaking', () => {
    const problem = { description: 'Unexpected.', content: { [PROBLEM]: { schema: { type: 'object' } } } };
    expect(label(contractChanges(...fixturePair((d) => (getItem(d).responses['500'] = problem))))).to.deep.equal(['non-breaking error-status-added @ GET /items/{item_id}']);
  });
});

describe('rules that break a generator only with its default options', () => {
  const versioning = fs.readFileSync(path.join(process.cwd(), 'docs', 'versioning.md'), 'utf8');
  const section = versioning.slice(versioning.indexOf('### Generator by generator'), versioning.indexOf('Consequences the project keeps'));

  it('are the rules docs/versioning.md names in its table "Generator by generator", and no others', () => {
    const named = new Set([...section.matchAll(/`([a-z]+(?:-[a-z]+)*-(?:added|required|removed|optional|changed|narrowed|widened))`/g)].map((match) => match[1]!).filter((name) => name !== 'default-response-added'));
    expect([...named].sort()).to.deep.equal(Object.keys(GENERATOR_DEFAULTS).sort());
  });

  it('are shown with the generators they break where npm run test:compat -- --list shows the change', () => {
    const [change] = contractChanges(...fixturePair((d) => (d.components.schemas.Item.properties.owner = { type: 'string' })));
    expect(generatorDefaultsNote(change!)).to.match(/^breaks earlier clients of: java okhttp-gson .*, go \(regenerate\)$/);
  });
});
