import { expect } from 'chai';
import fs from 'node:fs';

// A reader on npm 10 (the npm of Node.js 20 and 22) or npm 11 learns from the README that `npm install` compiles
// nothing with either, as decision 1 decided, and finds no workaround to run: both npms are tested
// (test/readme/no-compiler.test.ts).
describe('README: which npm installs without a compiler', () => {
  const readme = fs.readFileSync('README.md', 'utf8').replace(/\s+/g, ' ');
  const decision = fs.readFileSync('docs/decisions/0001-better-sqlite3.md', 'utf8').replace(/\s+/g, ' ');

  it('says that npm 10 and npm 11 compile nothing, as decision 1 does, without the old npm 11 workaround, and links its section', () => {
    expect(decision).to.include('So `npm install` and `npm ci` build nothing with npm 10 and with npm 11.');
    expect(readme).to.include('It compiles nothing (no C/C++ compiler, Python or Node headers needed), with npm 10, the npm of Node.js 20 and 22, as with npm 11');
    expect(readme).to.not.match(/npx -y npm@/);
    expect(readme).to.include('(docs/decisions/0001-better-sqlite3.md#installing-without-a-compiler)');
    expect(fs.readFileSync('docs/decisions/0001-better-sqlite3.md', 'utf8')).to.match(/^## Installing without a compiler$/m);
  });
});
