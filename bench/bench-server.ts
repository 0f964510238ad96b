// The built server started as `npm start` starts it (bench/server-command.ts), for benches that read what it logs
// and its memory: stdout (the JSON log lines, LOG_LEVEL=info: the default) goes to a file the bench reads.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/ports.js';
import { serverArgs } from './server-command.js';
import { procStatusKb } from './stats.js';

const root = path.resolve(import.meta.dirname, '..');

/**
 * Variables a bench decides itself (where the data is, how the server listens and logs, sign-in, validation):
 * taken out of the environment the bench was started with. Everything else (SEARCH_MEMORY_MB, TENANT_HANDLES_MAX,
 * …) passes through, so that a setting can be tried without editing the bench.
 */
const DECIDED_BY_THE_BENCH = /^(PORT|HOST|DATA_DIR|KLS_DIR|KLS_MODE|AFS_DIR|LOGO_DIR|APP_DB_URL|LOG_LEVEL|RESPONSE_VALIDATION|AUTH_MODE|OIDC_.*|S3_.*|GIT_WORKSPACES_DIR|NODE_OPTIONS)$/;

/** A server process started by a bench. */
export interface BenchServer {
  child: ChildProcess;
  url: string;
  pid: number;
  /** Log lines whose message starts with `message` so far, parsed. */
  logged(message: string): Record<string, unknown>[];
  rssMb(): number;
  /** Peak RSS (VmHWM) in MB. */
  peakMb(): number;
  stop(): Promise<void>;
}

/** The environment of a bench server: this process's, without the variables a bench decides, plus `env`. */
export function serverEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!DECIDED_BY_THE_BENCH.test(name)) base[name] = value;
  return { ...base, LOG_LEVEL: 'info', ...env };
}

/** Starts the built server (node flags of the `start` script) and resolves once GET /health answers 200. */
export async function startBenchServer(
  env: Record<string, string>,
  options: { healthyWithinMs?: number; /** another Node.js binary */ node?: string; /** another checkout's build */ root?: string } = {},
): Promise<BenchServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = path.join(os.tmpdir(), `ads-bench-server-${port}-${Date.now()}.log`);
  const out = fs.openSync(logFile, 'w');
  const child = spawn(options.node ?? process.execPath, serverArgs(options.root), {
    cwd: options.root ?? root,
    env: serverEnv({ PORT: String(port), HOST: '127.0.0.1', ...env }),
    stdio: ['ignore', out, 'inherit'],
  });
  fs.closeSync(out);
  child.once('exit', () => fs.rmSync(logFile, { force: true }));
  const pid = child.pid as number;
  const server: BenchServer = {
    child,
    url,
    pid,
    logged: (message) => {
      const lines: Record<string, unknown>[] = [];
      let text = '';
      try {
        text = fs.readFileSync(logFile, 'utf8');
      } catch {
        return lines;
      }
      for (const line of text.split('\n')) {
        if (!line.includes(`"msg":"${message}`)) continue;
        try {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // a line still being written
        }
      }
      return lines;
    },
    rssMb: () => procStatusKb(pid, 'VmRSS') / 1024,
    peakMb: () => procStatusKb(pid, 'VmHWM') / 1024,
    stop: () => stopChild(child),
  };
  try {
    await untilHealthy(url, options.healthyWithinMs ?? 120_000, child);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return server;
}

/** Resolves once GET /health answers 200; rejects after `ms` or when `child` exits. */
export async function untilHealthy(url: string, ms = 60_000, child?: ChildProcess): Promise<void> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(100)) {
    if (child !== undefined && child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before it was healthy`);
    try {
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
  }
  throw new Error(`${url} did not become healthy within ${ms / 1000} s`);
}

/** SIGTERM, then resolves when the process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `done` every 50 ms; rejects after `ms`. */
export async function waitFor(what: string, done: () => boolean, ms = 180_000): Promise<void> {
  for (const deadline = performance.now() + ms; !done(); await sleep(50)) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
  }
}

/** The name of the search sidecar beside a KLS file, if one is finished. */
export const sidecarOf = (klsFile: string): string | undefined =>
  fs.readdirSync(path.dirname(klsFile)).find((name) => /^search-index\.g\d+\.sqlite$/.test(name));

/** Tenants whose search names were read into memory or left on disk, as the server logged them so far. */
export const namesSettled = (server: BenchServer): number =>
  server.logged('search names in memory').length + server.logged('search names left on disk').length + server.logged('search names could not be read into memory').length;

/**
 * Waits until the server has logged the search names of `tenants` tenants as settled, or until that count has not
 * moved for `quietMs` (a names load skipped because the budget is spent logs nothing); answers the count.
 */
export async function namesSettledOrQuiet(server: BenchServer, tenants: number, quietMs: number, ms = 600_000): Promise<number> {
  let last = -1;
  let since = performance.now();
  for (const deadline = performance.now() + ms; performance.now() < deadline; await sleep(200)) {
    const count = namesSettled(server);
    if (count >= tenants) return count;
    if (count !== last) {
      last = count;
      since = performance.now();
    } else if (performance.now() - since >= quietMs) {
      return count;
    }
  }
  return last;
}
