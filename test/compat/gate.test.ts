import { expect } from 'chai';
import { parseChangelog, type ChangelogSection } from '../../contract/compat/changelog.js';
import { judge } from '../../contract/compat/gate.js';
import { fixturePair, getItem, type Doc } from './fixture-contract.js';

/** The section of `version` in a CHANGELOG made of `body` (its `###` headings and entries). */
function section(version: string, body: string): ChangelogSection {
  return parseChangelog(`# Changelog\n\n## ${version} — Unreleased\n\n${body}\n\n## 1.0.0 — 2026-01-01\n\n### Added\n- everything\n`)[0]!;
}

const removeLabel = (d: Doc) => delete d.components.schemas.Item.properties.label;
const addOwner = (d: Doc) => (d.components.schemas.Item.properties.owner = { type: 'string' });
const messages = (outcome: { violations: { message: string }[] }) => outcome.violations.map((violation) => violation.message);

describe('the compatibility gate (judge)', () => {
  it('passes a breaking change with a major version and its entries under "### Breaking"', () => {
    const [before, after] = fixturePair(removeLabel, ['1.0.0', '2.0.0']);
    const entries = '### Breaking\n- `GET /items/{item_id}` and `PUT /items/{item_id}`: `label` removed from the\n  answer.';
    expect(messages(judge(before, after, section('2.0.0', entries)))).to.deep.equal([]);
  });

  it('refuses a breaking change without a major version, naming operation, place, kind, rule and the version needed', () => {
    const [before, after] = fixturePair(removeLabel, ['1.0.0', '1.1.0']);
    const found = messages(judge(before, after, section('1.1.0', '### Breaking\n- `Item.label` removed.')));
    expect(found).to.deep.equal([
      'GET /items/{item_id} — response 200 (application/json): property `label` removed [breaking, rule response-property-removed]: breaking change needs version 2.0.0 or later (1.0.0 → 1.1.0)',
      'PUT /items/{item_id} — response 200 (application/json): property `label` removed [breaking, rule response-property-removed]: breaking change needs version 2.0.0 or later (1.0.0 → 1.1.0)',
    ]);
  });

  it('asks for a minor version only before 1.0.0', () => {
    const [before, after] = fixturePair(removeLabel, ['0.4.2', '0.5.0']);
    expect(messages(judge(before, after, section('0.5.0', '### Breaking\n- `Item.label` removed.')))).to.deep.equal([]);
    const [, patch] = fixturePair(removeLabel, ['0.4.2', '0.4.3']);
    expect(messages(judge(before, patch, section('0.4.3', '### Breaking\n- `Item.label` removed.')))[0]).to.match(/needs version 0\.5\.0 or later \(0\.4\.2 → 0\.4\.3\)$/);
  });

  it('refuses a change missing from the CHANGELOG section, and a breaking one listed outside "### Breaking"', () => {
    const [before, after] = fixturePair(addOwner, ['1.0.0', '1.1.0']);
    expect(messages(judge(before, after, section('1.1.0', '### Added\n- `GET /items/{item_id}`: `owner`.')))).to.deep.equal([
      'PUT /items/{item_id} — response 200 (application/json): property `owner` added [non-breaking, rule response-property-added]: not in CHANGELOG.md 1.1.0 (an entry naming `PUT /items/{item_id}` and `owner`)',
    ]);
    const [old, broken] = fixturePair(removeLabel, ['1.0.0', '2.0.0']);
    expect(messages(judge(old, broken, section('2.0.0', '### Removed\n- `Item.label`.')))).to.have.length(2).and.to.satisfy((found: string[]) => found.every((m) => m.includes('not in CHANGELOG.md 2.0.0 under "### Breaking"')));
  });

  it('takes an entry naming the schema member instead of each operation, but not one naming a longer path or another member', () => {
    const [before, after] = fixturePair(addOwner, ['1.0.0', '1.1.0']);
    expect(messages(judge(before, after, section('1.1.0', '### Added\n- `Item.owner`: who owns the item.')))).to.deep.equal([]);
    expect(messages(judge(before, after, section('1.1.0', '### Added\n- `GET /items/{item_id}/history` and `PUT /items/{item_id}`: `owners`.')))).to.have.length(2);
  });

  it('wants a newer version for any change, a minor one for an addition from 1.0.0 on, and a section for it', () => {
    const [before, same] = fixturePair(addOwner, ['1.0.0', '1.0.0']);
    expect(messages(judge(before, same, section('1.0.0', '- `Item.owner`'))).join('\n')).to.include('the contract changed since release 1.0.0 but info.version is 1.0.0');
    const [, patch] = fixturePair(addOwner, ['1.0.0', '1.0.1']);
    expect(messages(judge(before, patch, section('1.0.1', '### Added\n- `Item.owner`')))[0]).to.match(/non-breaking change needs version 1\.1\.0 or later/);
    const [, minor] = fixturePair(addOwner, ['1.0.0', '1.1.0']);
    expect(messages(judge(before, minor, undefined))).to.deep.equal(['CHANGELOG.md has no section "## 1.1.0 — …" for the 2 change(s) since 1.0.0']);
  });

  it('needs no entry and only a patch version for descriptions and examples', () => {
    const [before, after] = fixturePair((d) => (getItem(d).description = 'Reads one item.'), ['1.0.0', '1.0.1']);
    expect(messages(judge(before, after, section('1.0.1', '### Fixed\n- Wording.')))).to.deep.equal([]);
  });

  it('refuses malformed deprecations: no date, a sunset without its CHANGELOG link', () => {
    const [before, after] = fixturePair((d) => {
      Object.assign(getItem(d), { deprecated: true });
      Object.assign(getItem(d).parameters[1], { deprecated: true, 'x-deprecated-since': '2027-01-01', 'x-sunset': '2027-06-30' });
    }, ['1.0.0', '1.1.0']);
    const found = messages(judge(before, after, section('1.1.0', '### Deprecated\n- `GET /items/{item_id}`, its `view`.')));
    expect(found).to.deep.equal([
      'GET /items/{item_id}: deprecated: true needs x-deprecated-since, a date (YYYY-MM-DD) or date-time (RFC 3339) [rule deprecation-extensions]',
      'GET /items/{item_id} query parameter view: x-sunset needs x-deprecation-link (the CHANGELOG entry) [rule deprecation-extensions]',
    ]);
  });

  it('takes an entry naming the response component and status for a status every operation gained through it', () => {
    const [before, after] = fixturePair((d) => {
      d.components.responses = { Misdirected: { description: 'Another host.', content: { 'application/problem+json': { schema: { type: 'object' } } } } };
      for (const operation of [getItem(d), d.paths['/items/{item_id}'].put]) operation.responses['421'] = { $ref: '#/components/responses/Misdirected' };
    }, ['1.0.0', '1.1.0']);
    expect(messages(judge(before, after, section('1.1.0', '### Added\n- `421` (`Misdirected`) on every operation.')))).to.deep.equal([]);
    expect(messages(judge(before, after, section('1.1.0', '### Added\n- `Misdirected` on every operation.')))).to.have.length(2);
  });
});
