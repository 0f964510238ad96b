import { expect } from 'chai';
import { checkDefinition } from '../../src/signals/definition-check.js';
import { checkOutcome, compileOutcome } from '../../src/signals/tool-outcomes.js';
import { parseYamlSafely } from '../../src/signals/safe-yaml.js';
import { ALIAS_BOMB, EXAMPLE_SIGNAL, deepFlow } from '../helpers/signals.js';

const THESIS = `probe_id: hyp_revenue_leakage
type: thesis
name: {en: Revenue leaks, de: Erlöse, fr: Recettes}
contract:
  signals: [probe_unbilled_cases]
`;

describe('signal contract checker', () => {
  it('accepts the design example and a thesis', () => {
    expect(checkOutcome(EXAMPLE_SIGNAL, null)).to.deep.equal({ valid: true, errors: [] });
    expect(checkOutcome(THESIS, null)).to.deep.equal({ valid: true, errors: [] });
  });

  it('names the path and line of an unknown operator', () => {
    const yaml = EXAMPLE_SIGNAL.replace('op: in,', 'op: gt,');
    const { valid, errors } = checkOutcome(yaml, null);
    expect(valid).to.equal(false);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ path: 'contract.where[1].op', line: 15 });
    expect(errors[0]?.message).to.match(/^contract\.where\[1\]\.op: unknown operator "gt".* \(line 15\)$/);
  });

  it('reports every problem of a broken contract with its own path', () => {
    const yaml = EXAMPLE_SIGNAL
      .replace('entity_type: Case', 'entity_type: Patient')
      .replace('source: gold_cases', 'source: "gold_cases; DROP TABLE x"')
      .replace('entity_id: case_id', 'entity_id: "case_id\\" OR 1=1 --"')
      .replace('{level: low}', '{level: low, when: {column: billed, op: is_null}}')
      .replace('value: [closed, discharged]', 'value: []')
      .replace('evidence: [case_id,', 'evidence: [Case_Id,');
    const paths = checkOutcome(yaml, null).errors.map((error) => error.path);
    expect(paths).to.have.members([
      'contract.entity_type', 'contract.source', 'contract.entity_id', 'contract.where[1].value', 'contract.severity[2].when', 'contract.evidence[0]',
    ]);
  });

  it('checks the fields common to all types, prefix against type included', () => {
    const errors = checkOutcome('probe_id: hyp_x\ntype: signal\nname: {en: A}\ncontract: [1]\nextra: 1\n', null).errors;
    expect(errors.map((error) => error.path)).to.have.members(['extra', 'type', 'name.de', 'name.fr', 'contract']);
    expect(errors.find((error) => error.path === 'extra')?.line).to.equal(5);
  });

  it('checks condition arity: no value for is_null, a list for in, a text for like, finite numbers', () => {
    const yaml = EXAMPLE_SIGNAL.replace(
      '    - {column: billed, op: "=", value: 0}\n',
      '    - {column: billed, op: is_null, value: 1}\n    - {column: status, op: like, value: 3}\n    - {column: billed, op: ">", value: .inf}\n    - {column: billed, op: "=", value: [1]}\n',
    );
    expect(checkOutcome(yaml, null).errors.map((error) => error.path)).to.deep.equal([
      'contract.where[0].value', 'contract.where[1].value', 'contract.where[2].value', 'contract.where[3].value',
    ]);
  });

  it('with a Gold schema, reports a missing table or missing columns', () => {
    const gold = { tenant: 'ost.kantonsspital', tables: { gold_cases: ['case_id', 'billed', 'status', 'discharged_on'] } };
    const missing = checkOutcome(EXAMPLE_SIGNAL, gold).errors;
    expect(missing.map((error) => error.path)).to.include.members(['contract.money_at_risk', 'contract.severity[0].when.column', 'contract.evidence[2]']);
    expect(missing[0]?.message).to.match(/column "expected_amount" does not exist in gold_cases of tenant ost\.kantonsspital \(line 12\)/);
    const noTable = checkOutcome(EXAMPLE_SIGNAL, { tenant: 't', tables: {} }).errors;
    expect(noTable).to.deep.equal([{ message: 'contract.source: "gold_cases" is not a Gold table of tenant t (line 9)', path: 'contract.source', line: 9 }]);
  });

  it('reports YAML syntax errors with their line', () => {
    const { errors } = checkOutcome('probe_id: probe_x\ntype: signal\ncontract: {a: [1, 2}\n', null);
    expect(errors.length).to.be.greaterThan(0);
    expect(errors[0]?.path).to.equal(null);
    expect(errors[0]?.line).to.equal(3);
  });

  it('refuses alias bombs and deep nesting by their limits, without expanding or recursing', () => {
    for (const yaml of [ALIAS_BOMB, deepFlow(8_000), deepFlow(40), `a:\n${'  - '.repeat(1)}${'- '.repeat(5000)}x\n`, 'x: '.repeat(1) + 'y'.repeat(300_000)]) {
      const { valid, errors } = checkOutcome(yaml, null);
      expect(valid).to.equal(false);
      expect(errors[0]?.message).to.match(/aliases|nesting|larger than/);
    }
  });

  it('keeps documents within the limits parseable', () => {
    expect(parseYamlSafely(deepFlow(10)).errors).to.deep.equal([]);
    expect(checkDefinition(EXAMPLE_SIGNAL).signal?.where).to.have.length(2);
  });
});

describe('signal compiler outcome', () => {
  it('compiles only signals: a thesis is ok:false with an error on type', () => {
    const outcome = compileOutcome(THESIS, null);
    expect(outcome).to.deep.equal({
      ok: false,
      errors: [{ message: 'type: only signals can be compiled, this definition is a thesis (line 2)', path: 'type', line: 2 }],
    });
  });

  it('gives ok:false with the checker errors for an invalid signal', () => {
    const outcome = compileOutcome(EXAMPLE_SIGNAL.replace('op: in,', 'op: gt,'), null);
    expect(outcome.ok).to.equal(false);
    if (!outcome.ok) expect(outcome.errors[0]?.path).to.equal('contract.where[1].op');
  });
});
