import { expect } from 'chai';
import { JsonShapeScanner, jsonShapeProblem } from '../../src/http/body.js';

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

describe('JsonShapeScanner', () => {
  const judgedInPieces = (text: string, at: number, maxDepth: number, maxValues: number): string | null => {
    const bytes = Buffer.from(text, 'utf8');
    const scanner = new JsonShapeScanner(maxDepth, maxValues);
    return scanner.push(bytes.subarray(0, at)) ?? scanner.push(bytes.subarray(at)) ?? scanner.end();
  };

  it('judges text split anywhere (inside an escape, a string, a multi-byte character) as the whole text', () => {
    const texts = ['{"a\\"[":["x\\\\",{"é€😀":"[[\\"]]"}],"n":-12.5e3,"t":true}', '[[["\\\\"],[0]]]', '{"a":{"b":{"c":{}}}}'];
    for (const text of texts) {
      for (const [depth, values] of [[32, 100], [3, 100], [32, 5], [2, 3]] as const) {
        const whole = jsonShapeProblem(text, depth, values);
        for (let at = 0; at <= Buffer.byteLength(text); at += 1) expect(judgedInPieces(text, at, depth, values), `${text} split at ${at}`).to.equal(whole);
      }
    }
  });

  it('refuses at the first piece that passes a limit, without waiting for the rest', () => {
    const scanner = new JsonShapeScanner(3, 100);
    expect(scanner.push(Buffer.from('{"a":[['))).to.equal(null);
    expect(scanner.push(Buffer.from('[0]]]}'))).to.equal('nests arrays and objects deeper than 3 levels');
    const counting = new JsonShapeScanner(32, 3);
    expect(counting.push(Buffer.from('[1,2,'))).to.equal(null);
    expect(counting.push(Buffer.from('3,4'))).to.equal('holds more than 3 values');
  });
});
