import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REQUIRED_NODE_MAJOR } from '../../src/node-version.js';

/** The Node.js the registry brings when the machine has no older one: the last release of the major before 24. */
export const REGISTRY_OLDER_NODE = '20.20.2';

/** A Node.js older than the project's: the folder holding its `node`, and its version (`v20.20.2`). */
export interface OlderNode {
  binDir: string;
  version: string;
}

/** `node_modules/.bin` folders (where npm links the project's Node.js) and npm's own, left off a user's PATH. */
const isNpmRunDir = (dir: string): boolean =>
  dir.split(path.sep).slice(-2).join('/') === 'node_modules/.bin' || dir.endsWith(`${path.sep}node-gyp-bin`);

/** PATH as the user's shell had it before npm ran a script: without the folders npm puts first. */
export function userPath(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '' && !isNpmRunDir(dir));
}

const versionOf = (node: string): string => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const majorOf = (version: string): number => Number(/^v(\d+)/.exec(version)?.[1]);

/**
 * The machine's own `node` (the first on the user's PATH) when it is older than the project's runtime; otherwise
 * Node.js 20 from the npm registry's `node-<platform>-<arch>` package, unpacked once into `<cacheDir>/node-<version>`.
 */
export function olderNode(cacheDir: string): OlderNode {
  for (const dir of userPath()) {
    const node = path.join(dir, 'node');
    if (!fs.existsSync(node)) continue;
    const version = versionOf(node);
    if (majorOf(version) < REQUIRED_NODE_MAJOR) return { binDir: dir, version };
    break;
  }
  const unpacked = path.join(cacheDir, `node-${REGISTRY_OLDER_NODE}`);
  const node = path.join(unpacked, 'bin', 'node');
  if (!fs.existsSync(node)) {
    const name = `node-${process.platform}-${process.arch}`;
    const download = fs.mkdtempSync(path.join(cacheDir, '.older-node-'));
    try {
      execFileSync('npm', ['pack', '--silent', '--pack-destination', download, `${name}@${REGISTRY_OLDER_NODE}`], { stdio: ['ignore', 'ignore', 'inherit'] });
      execFileSync('tar', ['-xzf', path.join(download, `${name}-${REGISTRY_OLDER_NODE}.tgz`), '-C', download]);
      fs.rmSync(unpacked, { recursive: true, force: true });
      fs.renameSync(path.join(download, 'package'), unpacked);
    } finally {
      fs.rmSync(download, { recursive: true, force: true });
    }
  }
  return { binDir: path.dirname(node), version: versionOf(node) };
}

/** The npm that Node.js 20 and 22 bring, which the registry brings when a test needs it. */
export const REGISTRY_OLDER_NPM = '10.8.2';

/** An npm from the registry: its `npm` and `npx` (Node scripts, run by the first `node` on PATH) and its version. */
export interface RegistryNpm {
  npm: string;
  npx: string;
  version: string;
}

/** npm `version` from the registry's `npm` package, unpacked once into `<cacheDir>/npm-<version>`. */
export function registryNpm(cacheDir: string, version = REGISTRY_OLDER_NPM): RegistryNpm {
  const unpacked = path.join(cacheDir, `npm-${version}`);
  const bin = (name: string): string => path.join(unpacked, 'bin', `${name}-cli.js`);
  if (!fs.existsSync(bin('npm'))) {
    fs.mkdirSync(cacheDir, { recursive: true });
    const download = fs.mkdtempSync(path.join(cacheDir, '.npm-'));
    try {
      execFileSync('npm', ['pack', '--silent', '--pack-destination', download, `npm@${version}`], { stdio: ['ignore', 'ignore', 'inherit'] });
      execFileSync('tar', ['-xzf', path.join(download, `npm-${version}.tgz`), '-C', download]);
      fs.rmSync(unpacked, { recursive: true, force: true });
      fs.renameSync(path.join(download, 'package'), unpacked);
    } finally {
      fs.rmSync(download, { recursive: true, force: true });
    }
  }
  return { npm: bin('npm'), npx: bin('npx'), version };
}
