import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { BALANCER_CONFIGS } from '../helpers/balancers.js';

// docs/deployment.md shows the load balancers' configurations that test/api/load-balancer.test.ts runs: each is
// included between `<!-- include: deployment/<file> -->` and `<!-- /include -->` as one fenced block holding the
// file as it is. Edit the file, then copy it into the page (or the page, then the file): this test tells which differ.

const DOCS = path.resolve(import.meta.dirname, '..', '..', 'docs');
const page = fs.readFileSync(path.join(DOCS, 'deployment.md'), 'utf8');
const INCLUDE = /<!-- include: ([^ ]+) -->\n```[a-z]*\n([\s\S]*?)```\n<!-- \/include -->/g;

/** The fenced blocks between include markers, by the file they name. */
const includes = new Map([...page.matchAll(INCLUDE)].map((m) => [m[1]!, m[2]!]));

describe('the load balancer configurations of docs/deployment.md', () => {
  for (const [kind, file] of Object.entries(BALANCER_CONFIGS)) {
    it(`shows docs/deployment/${path.basename(file)} (run by the ${kind} tests) character for character`, () => {
      const shown = includes.get(`deployment/${path.basename(file)}`);
      expect(shown, `an include of deployment/${path.basename(file)} on the page`).to.be.a('string');
      expect(shown).to.equal(fs.readFileSync(file, 'utf8'));
    });
  }

  it('includes only files the tests run, and shows no other balancer configuration in the load balancer sections', () => {
    expect([...includes.keys()].sort()).to.deep.equal(Object.values(BALANCER_CONFIGS).map((file) => `deployment/${path.basename(file)}`).sort());
    const from = page.indexOf('### Behind a load balancer');
    const to = page.indexOf('\n## ', from);
    const fences = [...page.slice(from, to).replace(INCLUDE, '').matchAll(/^```([a-z]*)$/gm)].map((m) => m[1]);
    // the Kubernetes container spec (probes and drain settings, no balancer) is the one other block: opened, closed
    expect(fences).to.deep.equal(['yaml', '']);
  });
});
