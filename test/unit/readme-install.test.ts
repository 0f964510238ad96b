import { expect } from 'chai';
import fs from 'node:fs';

// A reader on an older npm (Node 20 brings npm 10) learns from the README, not from a failed node-gyp build, that
// the compiler-free install needs a newer npm and how to get it: the README says what decision 1 decided.
describe('README: which npm installs without a compiler', () => {
  const readme = fs.readFileSync('README.md', 'utf8').replace(/\s+/g, ' ');
  const decision = fs.readFileSync('docs/decisions/0001-better-sqlite3.md', 'utf8').replace(/\s+/g, ' ');

  it('names the first npm that reads allowScripts and the workaround for an older one, as decision 1 does, and links its section', () => {
    const minimum = /npm (\d+\.\d+) and later read `allowScripts`/.exec(decision)?.[1];
    expect(minimum, 'decision 1 names the first npm that reads allowScripts').to.be.a('string');
    expect(readme).to.include(`With npm ${minimum} or later it compiles nothing`);
    const workaround = /`npx -y npm@(\d+) install`/.exec(decision)?.[1];
    expect(workaround, 'decision 1 names the workaround').to.be.a('string');
    expect(Number(workaround)).to.be.at.least(Number(minimum!.split('.')[0]));
    expect(readme).to.include(`\`npx -y npm@${workaround} install\``);
    expect(readme).to.include('(docs/decisions/0001-better-sqlite3.md#installing-without-a-compiler)');
    expect(fs.readFileSync('docs/decisions/0001-better-sqlite3.md', 'utf8')).to.match(/^## Installing without a compiler$/m);
  });
});
