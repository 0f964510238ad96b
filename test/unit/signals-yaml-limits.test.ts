import { expect } from 'chai';
import { readDefinitionContent } from '../../src/signals/definition-content.js';
import { LIMITS } from '../../src/signals/definition-rules.js';
import { parseYamlSafely } from '../../src/signals/safe-yaml.js';
import { checkOutcome } from '../../src/signals/tool-outcomes.js';
import { manyKeys, nestedListsWithin } from '../helpers/hostile-yaml.js';
import { EXAMPLE_SIGNAL } from '../helpers/signals.js';

/** The one error parseYamlSafely reports for `text`. */
function refusal(text: string): { message: string; line: number | null } {
  const { doc, errors } = parseYamlSafely(text);
  expect(doc, text.slice(0, 80)).to.equal(null);
  expect(errors).to.have.length(1);
  return { message: errors[0]!.message, line: errors[0]!.line };
}

describe('signal YAML limits', () => {
  it('refuses a key that appears twice in one mapping, naming the key and the line of the second', () => {
    expect(refusal('probe_id: probe_x\ntype: signal\nprobe_id: probe_y\n')).to.deep.equal({
      message: 'the key "probe_id" appears twice in one mapping (line 3)',
      line: 3,
    });
    expect(refusal('probe_id: probe_x\ncontract: {source: a, entity_id: b,\n  source: c}\n').message).to.match(/^the key "source" appears twice.*\(line 3\)$/);
    // keys compare by value, as YAML does: 1 and 0x1 are the same integer, "1" is a text
    expect(refusal('contract: {1: a, 0x1: b}\n').message).to.match(/the key "1" appears twice/);
    expect(parseYamlSafely('contract: {1: a, "1": b}\n').errors).to.deep.equal([]);
    // the same key in two mappings is no duplicate
    expect(parseYamlSafely('a: {k: 1}\nb: {k: 2}\n').errors).to.deep.equal([]);
  });

  it('refuses the ~137 KB mapping of 35,000 keys by its size, before parsing', () => {
    const text = manyKeys(35_000);
    expect(text.length).to.be.within(136_000, 141_000);
    expect(refusal(text)).to.deep.equal({ message: `the YAML text is larger than ${LIMITS.yamlChars} characters`, line: null });
  });

  it('refuses more keys in one mapping, items in one list and nodes in one document than the limits allow', () => {
    const keys = manyKeys(LIMITS.keysPerMapping + 1);
    expect(refusal(keys)).to.deep.equal({ message: 'a mapping has more than 100 keys (line 3)', line: 3 });
    expect(parseYamlSafely(manyKeys(LIMITS.keysPerMapping)).errors).to.deep.equal([]);
    const items = `contract:\n  values: [${Array(LIMITS.itemsPerList + 1).fill('1').join(',')}]\n`;
    expect(refusal(items)).to.deep.equal({ message: 'a list has more than 1000 items (line 2)', line: 2 });
    const lists = (count: number): string => `contract: [${Array(count).fill(`[${Array(900).fill('1').join(',')}]`).join(',')}]\n`;
    // root, key, outer list, then 901 nodes per inner list
    expect(parseYamlSafely(lists(4)).errors).to.deep.equal([]);
    expect(refusal(lists(5)).message).to.equal('more than 4000 nodes (line 1)');
  });

  it('answers a text within the size limit that the parser finds costly with the limit it breaks', () => {
    const nested = nestedListsWithin(LIMITS.yamlChars);
    expect(nested.length).to.be.within(LIMITS.yamlChars - 30, LIMITS.yamlChars);
    expect(refusal(nested).message).to.match(/^more than 4000 nodes/);
    expect(readDefinitionContent(nested)).to.deep.equal({ ok: false, error: 'more than 4000 nodes (line 3)' });
    const { valid, errors } = checkOutcome(manyKeys(3000), null);
    expect(valid).to.equal(false);
    expect(errors).to.deep.equal([{ message: 'a mapping has more than 100 keys (line 3)', path: null, line: 3 }]);
  });

  it('keeps a signal at the limits of the language valid: 100 conditions and an in list of 1,000 values', () => {
    const condition = '    - {column: billed, op: "=", value: 0}\n';
    const values = Array.from({ length: LIMITS.listItems }, (_, i) => `c${i}`).join(', ');
    const yaml = EXAMPLE_SIGNAL.replace(
      '    - {column: billed, op: "=", value: 0}\n    - {column: status, op: in, value: [closed, discharged]}\n',
      `${condition.repeat(LIMITS.conditions - 1)}    - {column: status, op: in, value: [${values}]}\n`,
    );
    expect(yaml.length).to.be.below(LIMITS.yamlChars);
    expect(checkOutcome(yaml, null)).to.deep.equal({ valid: true, errors: [] });
  });

  it('reads the members the server uses as plain data, and refuses a document that is not a mapping', () => {
    expect(readDefinitionContent(EXAMPLE_SIGNAL)).to.deep.include({ ok: true, probeId: 'probe_unbilled_cases', description: undefined });
    const content = readDefinitionContent(EXAMPLE_SIGNAL);
    expect(content.ok && (content.contract as { source: string }).source).to.equal('gold_cases');
    expect(readDefinitionContent('- a\n- b\n')).to.deep.equal({ ok: false, error: 'the document is not a mapping' });
    expect(readDefinitionContent('a: [1\n')).to.deep.include({ ok: false });
  });
});
