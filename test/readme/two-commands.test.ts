import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { olderNode, userPath, type OlderNode } from '../helpers/older-node.js';
import { until } from '../helpers/until.js';

const root = path.resolve(import.meta.dirname, '../..');
const pinned = fs.readFileSync(path.join(root, '.node-version'), 'utf8').trim();

/** The user's environment: none of what the `npm test` running this file put there for its own scripts. */
function userEnv(older: OlderNode): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name) && !['INIT_CWD', 'NODE', 'NODE_OPTIONS'].includes(name)) env[name] = value;
  }
  env.PATH = [older.binDir, ...userPath()].join(path.delimiter);
  return env;
}

/** The port of the server's `listening` log line; undefined for any other line (npm's own output among them). */
function listeningPort(line: string): number | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
    return entry.msg === 'listening' && typeof entry.port === 'number' ? entry.port : undefined;
  } catch {
    return undefined;
  }
}

/** True once no process of the group `pgid` is left. */
const groupGone = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch {
    return true;
  }
};

// The README's first promise, tried as a new user would: a fresh clone of this repository's committed state, on a
// machine whose `node` is older than the project's, and exactly `npm install && npm start` (npm's cache is warm, as
// after the `npm ci` CI ran before). Only the port is chosen by the system, so that the run never collides.
describe("the README's two commands on a machine with an older Node.js", function () {
  this.timeout(300_000);
  let folder: string;
  let shell: ChildProcess | undefined;

  after(async () => {
    if (shell?.pid !== undefined) {
      const pgid = shell.pid;
      if (!groupGone(pgid)) process.kill(-pgid, 'SIGTERM');
      await until(() => groupGone(pgid), { deadline: 30_000, what: 'the server and npm to stop' });
    }
    if (folder !== undefined) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('npm install && npm start in a fresh clone serves GET /health 200 on the Node.js of .node-version', async () => {
    const older = olderNode(path.join(root, '.cache'));
    expect(Number(older.version.slice(1).split('.')[0]), `${older.version} is not older`).to.be.lessThan(Number(pinned.split('.')[0]));

    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-two-commands-'));
    const clone = path.join(folder, 'analytics-desk-server');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    execFileSync('git', ['clone', '--quiet', root, clone]);
    execFileSync('git', ['checkout', '--quiet', '--detach', head], { cwd: clone });

    // its own process group, so that npm, the shell and the server it starts are stopped together
    shell = spawn('sh', ['-c', 'npm install && npm start'], {
      cwd: clone,
      env: { ...userEnv(older), PORT: '0', HOST: '127.0.0.1' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let port: number | undefined;
    shell.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let lines = '';
    shell.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      lines += chunk.toString();
      for (let newline = lines.indexOf('\n'); newline >= 0; newline = lines.indexOf('\n')) {
        port ??= listeningPort(lines.slice(0, newline));
        lines = lines.slice(newline + 1);
      }
    });
    let exitCode: number | null | undefined;
    shell.once('exit', (code) => (exitCode = code));

    await until(() => port !== undefined || exitCode !== undefined, { deadline: 240_000, every: 200, what: 'npm install && npm start to listen' });
    expect(port, `npm install && npm start exited (${exitCode}) before listening:\n${output.slice(-4000)}`).to.be.a('number');

    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.include({ status: 'ok', mode: 'local' });
    // the Node.js the server runs on, as its metrics report it
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).to.match(new RegExp(`^nodejs_version_info\\{version="v${pinned.replace(/\./g, '\\.')}"`, 'm'));
  });
});
