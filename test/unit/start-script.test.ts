import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

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
      'analytics-desk-server needs Node.js 24 or newer, not 20.20.2; `source scripts/node.sh` installs and uses Node.js 24 for this shell',
    ]);
  });
});
