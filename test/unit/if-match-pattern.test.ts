import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { parseTagList } from '../../src/common/entity-tags.js';

const doc = YAML.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../openapi.yaml'), 'utf8'));

describe('If-Match in openapi.yaml', () => {
  it('has a pattern that accepts exactly the values the server takes (else a valid request is refused with 400)', () => {
    const pattern = doc.components.parameters.IfMatch.schema.pattern as string | undefined;
    expect(pattern, 'IfMatch.schema.pattern').to.be.a('string');
    const declared = new RegExp(pattern!, 'u');
    const values = [
      '*', ' * ', '\t*', ',*', '**', '"a"', 'W/"a"', 'w/"a"', '"a", "b"', '"a",,"b"', ',"a",', ' "a" ', '"a" "b"', '"a,b"',
      'a', '""', '"a""b"', '"\u00e9"', '"a\u0020b"', '"a"b', '', ' ', ',', '"q4mYkP0e1a3Lz7bW2cN9dR5tUvXsA"', 'W/"a", "b-gzip"',
    ];
    for (const value of values) expect(declared.test(value), JSON.stringify(value)).to.equal(parseTagList(value) !== null);
  });
});
