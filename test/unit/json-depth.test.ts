import { expect } from 'chai';
import { jsonShapeProblem } from '../../src/http/json-depth.js';

/** The number of values JSON.parse builds from `text` (member names not counted). */
function valuesIn(text: string): number {
  const count = (value: unknown): number =>
    value !== null && typeof value === 'object' ? 1 + Object.values(value).reduce((sum: number, v) => sum + count(v), 0) : 1;
  return count(JSON.parse(text));
}

describe('jsonShapeProblem', () => {
  const samples = [
    '0',
    '"text"',
    '[]',
    '{}',
    ' [ 1 , -2.5e-3 , true , false , null , "a" ] ',
    '{"a":1,"b":{"c":[null,{"d":"x"}]},"e":"[{\\"]}"}',
    '{"k\\\\":"v\\"","":[["",""]],"n":-0}',
    '[{"a":[]},{"b":{}},"]]]]",[[[1]]]]',
  ];

  it('counts exactly the values JSON.parse builds, and nothing inside strings', () => {
    for (const text of samples) {
      const values = valuesIn(text);
      expect(jsonShapeProblem(text, 32, values), text).to.equal(null);
      expect(jsonShapeProblem(text, 32, values - 1), text).to.equal(`holds more than ${values - 1} values`);
    }
  });

  it('measures the depth with the body as level 1, brackets in strings not counted', () => {
    expect(jsonShapeProblem('[[["[[[[[["]]]', 3, 100)).to.equal(null);
    expect(jsonShapeProblem('[[[[]]]]', 3, 100)).to.equal('nests arrays and objects deeper than 3 levels');
    expect(jsonShapeProblem('{"a":{"b":{"c":{}}}}', 3, 100)).to.equal('nests arrays and objects deeper than 3 levels');
    expect(jsonShapeProblem('[' + '[]'.repeat(50) + ']', 2, 100)).to.equal(null);
  });
});
