import { expect } from 'chai';
import { parseRange } from '../../src/operations/byte-range.js';
import { heldTag, rangeTagHolds, strongEtag } from '../../src/common/entity-tags.js';
import { sniffImageType } from '../../src/content/media-type.js';
import { pngLogo } from '../../src/demo/logos.js';
import { SVG_WITH_SCRIPT, TINY_JPEG, TINY_WEBP } from '../helpers/images.js';

describe('content helpers', () => {
  it('parseRange reads one byte range and cuts it at the end', () => {
    expect(parseRange('bytes=0-99', 1000)).to.deep.equal({ kind: 'part', start: 0, end: 99 });
    expect(parseRange('bytes=900-', 1000)).to.deep.equal({ kind: 'part', start: 900, end: 999 });
    expect(parseRange('bytes=-100', 1000)).to.deep.equal({ kind: 'part', start: 900, end: 999 });
    expect(parseRange('bytes=-5000', 1000)).to.deep.equal({ kind: 'part', start: 0, end: 999 });
    expect(parseRange('bytes=990-5000', 1000)).to.deep.equal({ kind: 'part', start: 990, end: 999 });
  });

  it('parseRange answers unsatisfiable past the end and whole for anything it does not serve', () => {
    expect(parseRange('bytes=1000-', 1000)).to.deep.equal({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=5000-6000', 1000)).to.deep.equal({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 1000)).to.deep.equal({ kind: 'unsatisfiable' });
    for (const header of [undefined, 'bytes=0-1,5-6', 'items=0-1', 'bytes=5-1', 'bytes=-', 'bytes=a-b']) {
      expect(parseRange(header, 1000), String(header)).to.deep.equal({ kind: 'whole' });
    }
  });

  it('sniffImageType decides from the bytes', () => {
    expect(sniffImageType(pngLogo([1, 2, 3]))).to.equal('image/png');
    expect(sniffImageType(TINY_JPEG)).to.equal('image/jpeg');
    expect(sniffImageType(TINY_WEBP)).to.equal('image/webp');
    expect(sniffImageType(Buffer.from(SVG_WITH_SCRIPT))).to.equal('image/svg+xml');
    expect(sniffImageType(Buffer.from('\ufeff<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<svg/>'))).to.equal('image/svg+xml');
    expect(sniffImageType(Buffer.from('<html><svg/></html>'))).to.equal(null);
    expect(sniffImageType(Buffer.from('GIF89a'))).to.equal(null);
  });

  it('strongEtag is stable per content; If-None-Match compares weakly, If-Range strongly', () => {
    const tag = strongEtag('abc');
    expect(strongEtag(Buffer.from('abc'))).to.equal(tag);
    expect(strongEtag('abd')).not.to.equal(tag);
    expect(heldTag(`"x", ${tag}`, tag)).to.equal(tag);
    expect(heldTag(`W/${tag}`, tag)).to.equal(tag);
    expect(heldTag('*', tag)).to.equal(tag);
    expect(heldTag(undefined, tag)).to.equal(null);
    expect(heldTag('"x"', tag)).to.equal(null);
    expect(rangeTagHolds(` ${tag} `, tag)).to.equal(true);
    expect(rangeTagHolds(`W/${tag}`, tag), 'a weak tag never matches strongly').to.equal(false);
    expect(rangeTagHolds('"x"', tag)).to.equal(false);
  });
});
