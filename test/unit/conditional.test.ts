import { expect } from 'chai';
import { codedTag, heldTag, ifMatchOf, parseTagList } from '../../src/common/entity-tags.js';
import { Problem } from '../../src/common/problems.js';

const TAG = '"a-b_c"';

describe('conditional request headers (src/common/entity-tags.ts)', () => {
  it('parses `*` and lists of strong and weak entity tags, and refuses other values', () => {
    expect(parseTagList(' * ')).to.equal('*');
    expect(parseTagList(`${TAG}, W/"x" ,"y"`)).to.deep.equal([TAG, 'W/"x"', '"y"']);
    for (const bad of ['', 'abc', '"unterminated', '"a" "b"', '*, "a"', 'w/"x"']) expect(parseTagList(bad), bad).to.equal(null);
  });

  it('puts the coding before the closing quote', () => {
    expect(codedTag(TAG, 'gzip')).to.equal('"a-b_c-gzip"');
    expect(codedTag(TAG, 'br')).to.equal('"a-b_c-br"');
  });

  it('finds in If-None-Match the form of the tag the client holds (weak comparison), or none', () => {
    expect(heldTag(TAG, TAG)).to.equal(TAG);
    expect(heldTag(`W/${TAG}`, TAG)).to.equal(TAG);
    expect(heldTag('"other", "a-b_c-gzip"', TAG)).to.equal('"a-b_c-gzip"');
    expect(heldTag('*', TAG)).to.equal(TAG);
    expect(heldTag('"a-b"', TAG)).to.equal(null);
    expect(heldTag('"a-b_c-deflate"', TAG)).to.equal(null);
    expect(heldTag(undefined, TAG)).to.equal(null);
    expect(heldTag('not a tag', TAG)).to.equal(null);
  });

  it('holds If-Match by strong comparison: any coded form of the current tag, never a weak one, `*` only for an existing target', () => {
    const check = (header: string) => ifMatchOf({ 'if-match': header })!;
    expect(ifMatchOf({})).to.equal(undefined);
    expect(check(TAG)(TAG)).to.equal(true);
    expect(check('"x", "a-b_c-br"')(TAG)).to.equal(true);
    expect(check(`W/${TAG}`)(TAG)).to.equal(false);
    expect(check('"a-b"')(TAG)).to.equal(false);
    expect(check(TAG)(null)).to.equal(false);
    expect(check('*')(TAG)).to.equal(true);
    expect(check('*')(null)).to.equal(false);
    expect(() => ifMatchOf({ 'if-match': 'abc' }))
      .to.throw(Problem)
      .with.property('status', 400);
  });
});
