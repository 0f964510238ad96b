import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { until } from './until.js';

/** The repository this test runs in. */
export const repositoryRoot = path.resolve(import.meta.dirname, '../..');

/** A clone of this repository's committed state (HEAD) in a new temp folder: `folder` to remove, `clone` to work in. */
export function freshClone(prefix: string): { folder: string; clone: string } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const clone = path.join(folder, 'analytics-desk-server');
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repositoryRoot, encoding: 'utf8' }).trim();
  execFileSync('git', ['clone', '--quiet', repositoryRoot, clone]);
  execFileSync('git', ['checkout', '--quiet', '--detach', head], { cwd: clone });
  return { folder, clone };
}

/** The environment without what the `npm test` running this file put there for its own scripts. */
export function withoutNpmRun(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (!/^npm_/i.test(name) && !['INIT_CWD', 'NODE', 'NODE_OPTIONS'].includes(name)) kept[name] = value;
  }
  return kept;
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

/** A shell command line that ends by starting the server: all it printed, and the port once the server listens. */
export interface ServerShell {
  /** Resolves with the port the server listens on; fails (with the output's end) when the shell exits first. */
  listening(deadline: number): Promise<number>;
  output(): string;
  /** Stops the shell, npm and the server (one process group) and waits until none is left. */
  stop(): Promise<void>;
}

/** Runs `command` (e.g. `npm install && npm start`) with `sh` in `cwd`, in its own process group. */
export function startServerShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ServerShell {
  const shell: ChildProcess = spawn('sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let port: number | undefined;
  let lines = '';
  let exitCode: number | null | undefined;
  shell.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  shell.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    lines += chunk.toString();
    for (let newline = lines.indexOf('\n'); newline >= 0; newline = lines.indexOf('\n')) {
      port ??= listeningPort(lines.slice(0, newline));
      lines = lines.slice(newline + 1);
    }
  });
  shell.once('exit', (code) => (exitCode = code));
  return {
    async listening(deadline) {
      await until(() => port !== undefined || exitCode !== undefined, { deadline, every: 200, what: `${command} to listen` });
      if (port === undefined) throw new Error(`${command} exited (${exitCode}) before listening:\n${output.slice(-4000)}`);
      return port;
    },
    output: () => output,
    async stop() {
      if (shell.pid === undefined) return;
      const pgid = shell.pid;
      if (!groupGone(pgid)) process.kill(-pgid, 'SIGTERM');
      await until(() => groupGone(pgid), { deadline: 30_000, what: 'the server and npm to stop' });
    },
  };
}
