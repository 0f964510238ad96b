// The one way every bench starts a server: the built server of a checkout (this one, or another commit checked out
// and built under .tmp/), started with the command of that checkout's `start` script (its variables and flags, if it
// has any), at the default LOG_LEVEL (info) into a file the bench reads, inside a memory limit when one is given; and
// the peer a user would otherwise pick, openapi-backend on Koa as its README shows (bench/openapi-backend-koa.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/ports.js';
import { insideLimit, type MemoryLimit } from './memory-limit.js';
import { procStatusKb } from './stats.js';

const checkout = path.resolve(import.meta.dirname, '..');

/**
 * Variables a bench decides itself (where the data is, how the server listens and logs, sign-in, validation):
 * taken out of the environment the bench was started with. Everything else (SEARCH_MEMORY_MB, TENANT_HANDLES_MAX,
 * …) passes through, so that a setting can be tried without editing the bench.
 */
const DECIDED_BY_THE_BENCH = /^(PORT|HOST|DATA_DIR|KLS_DIR|KLS_MODE|AFS_DIR|LOGO_DIR|APP_DB_URL|LOG_LEVEL|RESPONSE_VALIDATION|AUTH_MODE|OIDC_.*|S3_.*|GIT_WORKSPACES_DIR|NODE_OPTIONS)$/;

/** A build to run: a checkout with `dist/` built, the Node.js binary it runs on, and settings of its own. */
export interface Build {
  label: string;
  root: string;
  node: string;
  env: Record<string, string>;
}

/** This checkout on this Node.js. */
export const thisBuild = (): Build => ({ label: 'this build', root: checkout, node: process.execPath, env: {} });

/**
 * The `start` script of the build in `root`, as it runs the server: `env`, the variables it sets (`NAME=value`
 * before `node`), and `args`, `[...nodeFlags, absoluteEntry]`; throws when the build is missing.
 */
export function serverCommand(root = checkout): { env: Record<string, string>; args: string[] } {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  const [command, ...args] = words;
  const entry = args.pop();
  if (command !== 'node' || entry === undefined || args.some((arg) => !arg.startsWith('--'))) {
    throw new Error(`package.json start script is not "[NAME=value ...] node [--flag ...] <entry>": ${pkg.scripts.start}`);
  }
  const file = path.join(root, entry);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` in ${root}`);
  return { env, args: [...args, file] };
}

const capture = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string =>
  execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

/**
 * The Node.js release a checkout needs: its `.node-version`; without one (before the project pinned it), the Node 20
 * release of scripts/node.sh when its `engines` allow Node 20 (a build of that time was made for Node 20 and
 * keeps its own dependencies). BENCH_BASE_NODE overrides.
 */
function nodeReleaseOf(root: string): string {
  const pinned = path.join(root, '.node-version');
  if (process.env['BENCH_BASE_NODE']) return process.env['BENCH_BASE_NODE'];
  if (fs.existsSync(pinned)) return fs.readFileSync(pinned, 'utf8').trim();
  const engines = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines?: { node?: string } }).engines?.node ?? '';
  const major = /(\d+)/.exec(engines)?.[1];
  if (major === '20') return '20.20.2';
  return process.version.slice(1);
}

/**
 * The build of `ref` (a commit, tag or branch; `.` is this checkout), checked out into .tmp/bench-builds/<commit> and
 * installed and built there (`npm ci`, whose `prepare` builds) with the Node.js release it needs, once: later runs
 * reuse it. BENCH_BASE_ENV (`NAME=value …`, space-separated) gives it settings of its own, such as
 * `SEARCH_MEMORY_MB=0` to run this build without a mechanism beside itself.
 */
export function buildOf(ref: string): Build {
  const env = Object.fromEntries(
    (process.env['BENCH_BASE_ENV'] ?? '')
      .split(/\s+/)
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  const settings = Object.keys(env).length === 0 ? '' : `, ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')}`;
  if (ref === '.') return { ...thisBuild(), label: `this build${settings}`, env };
  const commit = capture('git', ['rev-parse', '--verify', `${ref}^{commit}`], checkout);
  const dir = path.join(checkout, '.tmp', 'bench-builds', commit);
  const nodeSh = path.join(checkout, 'scripts', 'node.sh');
  // not this run's npm context (`npm run bench` sets npm_config_nodedir and the like for this checkout's Node)
  const withNode: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  if (!fs.existsSync(path.join(dir, 'dist', 'src', 'main.js'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    // --force: a folder removed by hand is still registered as a work tree
    capture('git', ['worktree', 'add', '--force', '--detach', dir, commit], checkout);
    console.log(`${ref}: installing and building ${commit.slice(0, 10)} with Node ${nodeReleaseOf(dir)} in ${path.relative(checkout, dir)}`);
    withNode['NODE_SH_VERSION'] = nodeReleaseOf(dir);
    capture(nodeSh, ['npm', 'ci', '--no-audit', '--no-fund'], dir, withNode);
  }
  withNode['NODE_SH_VERSION'] = nodeReleaseOf(dir);
  serverCommand(dir);
  return { label: `${ref}${settings}`, root: dir, node: capture(nodeSh, ['node', '-p', 'process.execPath'], dir, withNode), env };
}

/** The Node.js version a build runs on. */
export const nodeVersion = (build: Build): string => capture(build.node, ['--version'], checkout);

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
  /** How the process ended (`SIGKILL`, `exit code 1`), or null while it runs. */
  ended(): string | null;
  stop(): Promise<void>;
}

/** How `child` ended, or null while it runs. */
const endOf = (child: ChildProcess): string | null => child.signalCode ?? (child.exitCode === null ? null : `exit code ${child.exitCode}`);

/**
 * Starts `build`'s server (this checkout's by default) on `env`, inside `memoryLimit` when given (the process is in
 * the cgroup before its first allocation), and resolves once GET /health answers 200.
 */
export async function startServer(env: Record<string, string>, options: { build?: Build; healthyWithinMs?: number; memoryLimit?: MemoryLimit } = {}): Promise<BenchServer> {
  const build = options.build ?? thisBuild();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = path.join(os.tmpdir(), `ads-bench-server-${port}-${Date.now()}.log`);
  const out = fs.openSync(logFile, 'w');
  const inherited: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!DECIDED_BY_THE_BENCH.test(name)) inherited[name] = value;
  const command = serverCommand(build.root);
  const [file, args] = options.memoryLimit === undefined ? [build.node, command.args] : insideLimit(options.memoryLimit, build.node, command.args);
  const child = spawn(file, args, {
    cwd: build.root,
    env: { ...inherited, ...command.env, LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', ...env, ...build.env },
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
      let text = '';
      try {
        text = fs.readFileSync(logFile, 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter((line) => line.includes(`"msg":"${message}`))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return []; // a line still being written
          }
        });
    },
    rssMb: () => procStatusKb(pid, 'VmRSS') / 1024,
    peakMb: () => procStatusKb(pid, 'VmHWM') / 1024,
    ended: () => endOf(child),
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
async function untilHealthy(url: string, ms: number, child: ChildProcess): Promise<void> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(100)) {
    if (endOf(child) !== null) throw new Error(`the server ended (${endOf(child)}) before it was healthy`);
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
const namesSettled = (server: BenchServer): number =>
  server.logged('search names in memory').length + server.logged('search names left on disk').length + server.logged('search names could not be read into memory').length;

/**
 * Waits until the server has logged the search names of `tenants` tenants as settled, or until that count has not
 * moved for `quietMs` (a names load skipped because the budget is spent logs nothing, and so does a build that
 * does not log them); answers the count.
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

/** Resets a process's VmHWM to its current RSS; false when the kernel refuses. */
export function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** An answer as the server sent it, without the headers of the connection or the moment. */
export interface FixedAnswer {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** GETs `url` as the load generators do (no Accept-Encoding) and keeps the status, the answer's own headers and the body. */
export function fetchAnswer(url: string): Promise<FixedAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            if (!PER_CONNECTION.has(res.rawHeaders[i]!.toLowerCase())) headers.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
          }
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      })
      .on('error', reject);
  });
}

/**
 * Starts the peer (bench/openapi-backend-koa.ts) over `build`'s openapi.yaml, answering `getJumpbar` with `answer`
 * (a JSON body), on `build`'s Node.js as it comes: no flags, no variables of the server's `start` script.
 */
export async function startPeer(answer: FixedAnswer, build: Build = thisBuild()): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const answerFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-peer-')), 'answer.json');
  fs.writeFileSync(answerFile, JSON.stringify({ headers: answer.headers, body: JSON.parse(answer.body.toString('utf8')) as unknown }));
  const child = spawn(build.node, ['--import', import.meta.resolve('tsx'), path.join(checkout, 'bench', 'openapi-backend-koa.ts'), path.join(build.root, 'openapi.yaml'), answerFile], {
    cwd: checkout,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0]!.trim());
    });
    child.once('exit', () => reject(new Error('the openapi-backend peer exited')));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: async () => {
      await stopChild(child);
      fs.rmSync(path.dirname(answerFile), { recursive: true, force: true });
    },
  };
}
