import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { until } from '../helpers/until.js';

const root = path.resolve(import.meta.dirname, '../..');
const source = path.join(root, 'tools', 'gyp-guard');
const guard = path.join(source, 'node-gyp.js');
const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string> };
const tarball = `tools/${manifest.name}-${manifest.version}.tgz`;

// tools/gyp-guard is the `node-gyp` npm finds first when it runs a dependency's install script: it skips npm's implicit
// `node-gyp rebuild` of a package whose package.json says "gypfile": false, which npm 10 runs when it installs from
// the lockfile (docs/decisions/0001-better-sqlite3.md), and hands every other call to npm's own node-gyp.
describe('the node-gyp in front of npm’s own (tools/gyp-guard)', () => {
  let folder: string;
  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-gyp-guard-'));
    // npm's node-gyp as the guard sees it: a Node script (npm_config_node_gyp); this one reports how it was called
    fs.writeFileSync(path.join(folder, 'npm-node-gyp.js'), "process.stdout.write(JSON.stringify(process.argv.slice(2))); process.exit(Number(process.env.EXIT_WITH ?? 0));\n");
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  /** A package folder with `pkg` as its package.json; the guard run there as npm runs an install script. */
  function runIn(pkg: object, args: string[], env: Record<string, string> = {}): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
    const dir = fs.mkdtempSync(path.join(folder, 'pkg-'));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg));
    const run = spawnSync(process.execPath, [guard, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        npm_lifecycle_event: 'install',
        npm_lifecycle_script: 'node-gyp rebuild',
        npm_config_node_gyp: path.join(folder, 'npm-node-gyp.js'),
        ...env,
      },
    });
    return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
  }

  it('skips npm’s implicit rebuild of a package that says "gypfile": false and has no install script', () => {
    const run = runIn({ name: 'native-thing', version: '1.2.3', gypfile: false }, ['rebuild']);
    expect(run.status).to.equal(0);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.equal('node-gyp rebuild skipped for native-thing@1.2.3: its package.json says "gypfile": false\n');
  });

  it('hands every other call to npm’s node-gyp, with its arguments and its exit code', () => {
    // no "gypfile": false: npm's rule builds it
    expect(runIn({ name: 'a', version: '1.0.0' }, ['rebuild'])).to.deep.include({ status: 0, stdout: '["rebuild"]' });
    // the package's own install script calls node-gyp: npm runs it whatever gypfile says
    expect(runIn({ name: 'b', version: '1.0.0', gypfile: false, scripts: { install: 'node-gyp rebuild' } }, ['rebuild'])).to.deep.include({ stdout: '["rebuild"]' });
    expect(runIn({ name: 'c', version: '1.0.0', gypfile: false, scripts: { preinstall: 'true' } }, ['rebuild'])).to.deep.include({ stdout: '["rebuild"]' });
    // a script other than the implicit install one, or other arguments
    expect(runIn({ name: 'd', version: '1.0.0', gypfile: false }, ['rebuild', '--release'], { npm_lifecycle_script: 'node-gyp rebuild --release' })).to.deep.include({ stdout: '["rebuild","--release"]' });
    expect(runIn({ name: 'e', version: '1.0.0', gypfile: false }, ['rebuild'], { npm_lifecycle_event: 'build-release' })).to.deep.include({ stdout: '["rebuild"]' });
    expect(runIn({ name: 'f', version: '1.0.0', gypfile: false }, ['--version'])).to.deep.include({ stdout: '["--version"]' });
    // npm's node-gyp failing fails the call
    expect(runIn({ name: 'g', version: '1.0.0' }, ['rebuild'], { EXIT_WITH: '7' })).to.deep.include({ status: 7 });
  });

  it('ends as npm’s node-gyp ends when a signal ends it, and passes on the signals that stop an install', async () => {
    // npm's node-gyp killed by a signal: the guard ends by the same signal, as npm's node-gyp alone would have
    const killed = path.join(folder, 'killed-node-gyp.js');
    fs.writeFileSync(killed, "process.kill(process.pid, 'SIGTERM');\n");
    const run = runIn({ name: 'i', version: '1.0.0' }, ['rebuild'], { npm_config_node_gyp: killed });
    expect({ status: run.status, signal: run.signal }).to.deep.equal({ status: null, signal: 'SIGTERM' });

    // npm stops an install by signalling the script's process: npm's node-gyp behind the guard gets it too
    const waiting = path.join(folder, 'waiting-node-gyp.js');
    const got = path.join(folder, 'got-signal');
    fs.writeFileSync(waiting, `process.on('SIGTERM', () => { require('fs').writeFileSync(${JSON.stringify(got)}, 'SIGTERM'); process.exit(3); });\n` +
      `require('fs').writeFileSync(${JSON.stringify(got + '.ready')}, ''); setInterval(() => {}, 1000);\n`);
    const dir = fs.mkdtempSync(path.join(folder, 'pkg-'));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'j', version: '1.0.0' }));
    const child = spawn(process.execPath, [guard, 'rebuild'], { cwd: dir, stdio: 'ignore', env: { PATH: process.env.PATH, npm_config_node_gyp: waiting } });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await until(() => fs.existsSync(got + '.ready'), { deadline: 20_000, what: 'npm’s node-gyp to start' });
    child.kill('SIGTERM');
    expect(await exited, 'the guard ends with npm’s node-gyp’s exit code').to.equal(3);
    expect(fs.readFileSync(got, 'utf8')).to.equal('SIGTERM');
  });

  it('refuses to run outside npm, which names its node-gyp in npm_config_node_gyp', () => {
    const run = runIn({ name: 'h', version: '1.0.0' }, ['configure'], { npm_config_node_gyp: '' });
    expect(run.status).to.equal(1);
    expect(run.stderr).to.match(/^node-gyp: run it through npm/);
    expect(runIn({ name: 'h', version: '1.0.0' }, ['configure'], { npm_config_node_gyp: guard }).status).to.equal(1);
  });

  it('is installed from a tarball that holds exactly its source, at the integrity the lockfile records', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { integrity?: string; resolved?: string; dev?: boolean; bin?: object }> };
    // a dependency (not dev): `npm ci --omit=dev` runs the same install scripts
    expect(pkg.dependencies[manifest.name]).to.equal(`file:${tarball}`);
    const locked = lock.packages[`node_modules/${manifest.name}`];
    expect(locked).to.deep.include({ resolved: `file:${tarball}`, bin: { 'node-gyp': 'node-gyp.js' } });
    expect(locked?.dev).to.equal(undefined);
    // nothing else brings a `node-gyp` bin: one (say node-gyp itself, hoisted) could take node_modules/.bin/node-gyp
    const others = Object.entries(lock.packages).filter(([where, entry]) => where !== `node_modules/${manifest.name}` && entry.bin !== undefined && 'node-gyp' in entry.bin);
    expect(others.map(([where]) => where), 'packages with a node-gyp bin beside the guard').to.deep.equal([]);
    const bytes = fs.readFileSync(path.join(root, tarball));
    const regenerate = `regenerate it: npm pack ./tools/gyp-guard --pack-destination tools && npm install ./${tarball}`;
    expect(locked?.integrity, regenerate).to.equal(`sha512-${createHash('sha512').update(bytes).digest('base64')}`);

    const unpacked = fs.mkdtempSync(path.join(folder, 'tarball-'));
    execFileSync('tar', ['-xzf', path.join(root, tarball), '-C', unpacked]);
    const files = fs.readdirSync(path.join(unpacked, 'package')).sort();
    expect(files, regenerate).to.deep.equal(['node-gyp.js', 'package.json']);
    for (const file of files) {
      expect(fs.readFileSync(path.join(unpacked, 'package', file), 'utf8'), `${file}: ${regenerate}`).to.equal(fs.readFileSync(path.join(source, file), 'utf8'));
    }
    expect(fs.statSync(path.join(unpacked, 'package', 'node-gyp.js')).mode & 0o111, 'node-gyp.js executable').to.not.equal(0);
  });
});
