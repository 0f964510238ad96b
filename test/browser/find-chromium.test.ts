import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { findChromium } from '../helpers/browser.js';
import { tempDir } from '../helpers/server.js';

describe('findChromium (where the browser tests look for Chromium)', () => {
  const bin = tempDir('ads-chromium-');
  const fake = path.join(bin.dir, 'chromium');
  const notExecutable = path.join(bin.dir, 'readme.txt');
  before(() => {
    fs.writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(notExecutable, 'not a browser\n', { mode: 0o644 });
  });
  after(() => bin.remove());

  it('takes CHROMIUM_PATH first', () => {
    expect(findChromium({ CHROMIUM_PATH: fake, PATH: '' }, [notExecutable])).to.equal(fake);
  });

  it('fails naming CHROMIUM_PATH when it is not an executable file', () => {
    expect(() => findChromium({ CHROMIUM_PATH: notExecutable, PATH: bin.dir })).to.throw(`CHROMIUM_PATH is "${notExecutable}"`);
  });

  it('takes the first executable default before PATH', () => {
    expect(findChromium({ PATH: '/nonexistent' }, [path.join(bin.dir, 'missing'), fake])).to.equal(fake);
  });

  it('falls back to chromium on PATH', () => {
    expect(findChromium({ PATH: ['/nonexistent', bin.dir].join(path.delimiter) }, [notExecutable])).to.equal(fake);
  });

  it('fails saying how to get Chromium when there is none', () => {
    expect(() => findChromium({ PATH: '/nonexistent' }, [notExecutable])).to.throw(/no Chromium found .*CHROMIUM_PATH.*apt-get install chromium/);
  });
});
