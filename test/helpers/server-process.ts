import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { demoTemplateDir, tempDir } from './server.js';

/** A real server process (`node --import tsx src/main.ts`) listening on an ephemeral port. */
export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** SIGKILL: no shutdown code runs. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/** One data folder (demo KLS files + one app database) that several server processes share. */
export interface SharedData {
  readonly dir: string;
  readonly env: Record<string, string>;
  remove(): void;
}

/** A copy of the demo data with the app database at `<dir>/app/app.sqlite`. */
export function sharedData(prefix: string): SharedData {
  const data = tempDir(prefix);
  fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
  return {
    dir: data.dir,
    env: {
      DATA_DIR: data.dir,
      KLS_DIR: path.join(data.dir, 'kls'),
      APP_DB_URL: `sqlite:${path.join(data.dir, 'app', 'app.sqlite')}`,
      GIT_WORKSPACES_DIR: '',
    },
    remove: data.remove,
  };
}

/** Spawns the server with `env` and PORT=0; resolves once it logged `listening` (with its port). */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        try {
          const entry = JSON.parse(line) as { msg?: string; port?: number };
          if (entry.msg === 'listening' && typeof entry.port === 'number') resolve(entry.port);
        } catch {
          // not a log line
        }
      }
    });
    void exited.then(() => reject(new Error(`server exited before listening: ${stderr.trim()}`)));
  });
  child.stdout!.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
