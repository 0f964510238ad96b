import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
const contractText = fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8');
const doc = YAML.parse(contractText) as {
  info: { description: string };
  externalDocs: { url: string; description?: string };
  tags: { name: string; description?: string; externalDocs?: { url: string } }[];
};

// The introduction is what Swagger UI shows above the operations and what a generated client's README opens with;
// the reference it points to lives in docs/ of the repository, published under the contract's `externalDocs` home.
describe("the contract's introduction (info.description) and its links", () => {
  const home = `${new URL(doc.externalDocs.url).origin}/`;

  it('is a short introduction, without sections of reference', () => {
    const lines = doc.info.description.trim().split('\n');
    expect(lines.length, 'lines of info.description').to.be.at.most(24);
    expect(lines.filter((line) => /^#/.test(line)), 'headings').to.deep.equal([]);
    expect(doc.info.description).to.match(/Local mode/).and.match(/Store mode/);
  });

  it('links absolutely (relative links break in Swagger UI and in generated READMEs), to files the repository has', () => {
    expect(doc.externalDocs.url).to.match(/^https:\/\//);
    // every link of the contract, wherever it is written: markdown links and externalDocs urls
    const links = [...contractText.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
    const externalDocs = [doc.externalDocs.url, ...doc.tags.flatMap((tag) => (tag.externalDocs === undefined ? [] : [tag.externalDocs.url]))];
    expect(links.length, 'links in the introduction').to.be.at.least(5);
    for (const link of [...links, ...externalDocs]) {
      expect(link.startsWith(home), `${link} starts with ${home}`).to.equal(true);
      const file = new URL(link).pathname.slice(1);
      expect(fs.existsSync(path.join(root, file)), `${link}: ${file} is in the repository`).to.equal(true);
    }
  });
});
