import { expect } from 'chai';
import fs from 'node:fs';
import YAML from 'yaml';

describe('the version', () => {
  const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
  const contract = YAML.parse(fs.readFileSync('openapi.yaml', 'utf8')) as { info: { version: string } };

  it("of openapi.yaml (info.version) is package.json's", () => {
    expect(pkg.version).to.match(/^\d+\.\d+\.\d+$/);
    expect(contract.info.version).to.equal(pkg.version);
  });

  it('has its entry in CHANGELOG.md, the newest one', () => {
    const entries = [...fs.readFileSync('CHANGELOG.md', 'utf8').matchAll(/^## (\d+\.\d+\.\d+) — \d{4}-\d{2}-\d{2}$/gm)].map((m) => m[1]);
    expect(entries[0]).to.equal(pkg.version);
  });
});
