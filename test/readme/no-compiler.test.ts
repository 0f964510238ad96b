import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshClone, repositoryRoot, startServerShell, withoutNpmRun, type ServerShell } from '../helpers/fresh-clone.js';
import { olderNode, registryNpm, userPath, REGISTRY_OLDER_NPM } from '../helpers/older-node.js';

/** What a native build needs; none of them may be reachable. */
const BUILD_TOOLS = ['make', 'gmake', 'cc', 'gcc', 'c++', 'g++', 'clang', 'clang++', 'python', 'python3'];

/** The first `name` on the user's PATH (throws when there is none: the test cannot run without it). */
function onUserPath(name: string): string {
  for (const dir of userPath()) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) return file;
  }
  throw new Error(`no ${name} on PATH`);
}

/** A folder of links to only `tools` (name → file): the whole PATH of a machine without a compiler. */
function toolFolder(folder: string, tools: Record<string, string>): string {
  const bin = path.join(folder, 'bin');
  fs.mkdirSync(bin);
  for (const [name, file] of Object.entries(tools)) fs.symlinkSync(file, path.join(bin, name));
  return bin;
}

/** Which npm installs: its `npm` and `npx`, and the version it must report (undefined: whatever it is). */
interface NpmUnderTest {
  npm: string;
  npx: string;
  version?: string;
}

const cacheDir = path.join(repositoryRoot, '.cache');

/** The machine's own npm: the one beside the older Node when it has one, else the first on the user's PATH. */
function machineNpm(binDir: string): NpmUnderTest {
  const dir = fs.existsSync(path.join(binDir, 'npm')) ? binDir : path.dirname(onUserPath('npm'));
  return { npm: path.join(dir, 'npm'), npx: path.join(dir, 'npx') };
}

// The README's `npm install && npm start` on a slim image or a locked-down build host: no C/C++ toolchain, no Python,
// no user npm settings (no `nodedir` naming headers), the machine's older Node first on PATH, nothing downloaded but
// from the registry (npm's cache is warm, as after the `npm ci` CI ran before). better-sqlite3 loads its prebuilt
// Node-API binary; npm must not try to build it (docs/decisions/0001-better-sqlite3.md), neither npm 10 (the npm of
// Node.js 20 and 22, which does not read `allowScripts`) nor the machine's npm.
describe('npm install on a machine without a compiler', function () {
  this.timeout(600_000);
  let folder: string | undefined;
  let shell: ServerShell | undefined;

  afterEach(async () => {
    await shell?.stop();
    shell = undefined;
    if (folder !== undefined) fs.rmSync(folder, { recursive: true, force: true });
    folder = undefined;
  });

  async function installAndStart(which: (older: ReturnType<typeof olderNode>) => NpmUnderTest): Promise<void> {
    const older = olderNode(cacheDir);
    const npmUnderTest = which(older);
    const npmCache = process.env.npm_config_cache ?? execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
    let clone: string;
    ({ folder, clone } = freshClone('ads-no-compiler-'));

    const bin = toolFolder(folder, {
      node: path.join(older.binDir, 'node'),
      npm: npmUnderTest.npm,
      npx: npmUnderTest.npx,
      git: onUserPath('git'),
      sh: onUserPath('sh'),
    });
    const userConfig = path.join(folder, 'npmrc-user');
    const globalConfig = path.join(folder, 'npmrc-global');
    fs.writeFileSync(userConfig, '');
    fs.writeFileSync(globalConfig, '');
    const env: NodeJS.ProcessEnv = {
      ...withoutNpmRun(),
      PATH: bin,
      npm_config_userconfig: userConfig,
      npm_config_globalconfig: globalConfig,
      npm_config_cache: npmCache,
      PORT: '0',
      HOST: '127.0.0.1',
    };
    for (const name of ['CC', 'CXX', 'MAKE', 'PYTHON', 'NODEDIR']) delete env[name];

    // the machine the test claims: no build tool reachable, an older Node first, npm without nodedir
    for (const tool of BUILD_TOOLS) expect(fs.existsSync(path.join(bin, tool)), `${tool} on PATH`).to.equal(false);
    const npm = (...args: string[]): string => execFileSync('npm', args, { cwd: clone, env, encoding: 'utf8' }).trim();
    expect(execFileSync('node', ['--version'], { env, encoding: 'utf8' }).trim()).to.equal(older.version);
    const version = npm('--version');
    if (npmUnderTest.version !== undefined) expect(version).to.equal(npmUnderTest.version);
    expect(npm('config', 'get', 'nodedir')).to.be.oneOf(['undefined', 'null']);

    shell = startServerShell('npm install && npm start', clone, env);
    const port = await shell.listening(540_000);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status, `GET /health after npm ${version}`).to.equal(200);
    expect(await health.json()).to.include({ status: 'ok', mode: 'local' });
    // no node-gyp ran for better-sqlite3 (where it can, it leaves build/ with its Makefile and config.gypi)
    expect(fs.existsSync(path.join(clone, 'node_modules', 'better-sqlite3', 'build')), `better-sqlite3/build/ after npm ${version}`).to.equal(false);
    expect(fs.existsSync(path.join(clone, 'node_modules', 'better-sqlite3', 'prebuilds', `${os.platform()}-${os.arch()}.node`))).to.equal(true);
    // the install leaves the checkout as it was (the lockfile unchanged)
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' }), `git status after npm ${version} install`).to.equal('');
  }

  it(`with npm ${REGISTRY_OLDER_NPM} (the npm of Node.js 20 and 22, from the registry): npm install && npm start in a fresh clone, with an empty npm configuration and no make, g++ or python on PATH, serves GET /health 200`, async () => {
    await installAndStart(() => registryNpm(cacheDir));
  });

  it("with the machine's npm: npm install && npm start in a fresh clone, with an empty npm configuration and no make, g++ or python on PATH, serves GET /health 200", async () => {
    await installAndStart((older) => machineNpm(older.binDir));
  });
});
