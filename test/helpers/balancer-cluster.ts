import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';
import { startPostgres, type TestPostgres } from './postgres.js';
import { demoKlsFile, klsVariant, startObjectStore, type TestObjectStore } from './s3rver.js';
import { until } from './until.js';

// Several store-mode instances of the built server (`node dist/src/main.js`, what `npm start` runs) on one
// PostgreSQL app database and one s3rver, each on a port of its own that it keeps across restarts (a balancer's
// configuration names it), each with a cache folder of its own.

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'main.js');

/** One request an instance logged (its request line): the path it served, the status, the client's `X-Request-Id`. */
export interface ServedRequest {
  readonly path: string;
  readonly status: number;
  readonly clientRequestId: string | null;
  /** When the instance logged it (ms since the epoch; its log line's `time`). */
  readonly time: number;
}

/** One server process that can be killed, drained and started again on the same port. */
export interface Instance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** Every request line this instance logged since it was first started (restarts included). */
  readonly served: ServedRequest[];
  readonly running: boolean;
  /** Starts the process (again), on the same port; `fresh` empties its cache folder first. Resolves once it is ready. */
  start(options?: { fresh?: boolean }): Promise<void>;
  /** SIGKILL: nothing of the shutdown runs. */
  kill(): Promise<void>;
  /** SIGTERM: readiness 503 at once, SHUTDOWN_DELAY_MS of service, then the drain; resolves at the exit with its code. */
  drain(): Promise<number | null>;
  /** SIGSTOP (frozen: connections are still accepted by the kernel, nothing is answered) or SIGCONT (thawed). */
  freeze(frozen: boolean): void;
}

export interface DeskCluster {
  readonly postgres: TestPostgres;
  readonly store: TestObjectStore;
  /** Composite IDs of the tenants in the store (`lb.t01` …). */
  readonly tenants: readonly string[];
  readonly instances: readonly Instance[];
  /** Bytes of one tenant file in the store. */
  readonly tenantBytes: number;
  /** Kills every instance and starts it again with an empty cache. */
  restartCold(): Promise<void>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  instances: number;
  tenants: number;
  /** STORE_CACHE_MAX_MB of every instance. */
  cacheMb: number;
  env?: Record<string, string>;
}

/** The pack of the cluster's tenants; their slugs are `t01`, `t02`, …. */
export const PACK = 'lb';

/** Starts PostgreSQL and s3rver, uploads `tenants` copies of a demo tenant and starts the instances (ready when it resolves). */
export async function startDeskCluster(options: ClusterOptions): Promise<DeskCluster> {
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build (npm ci does)`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-cluster-'));
  const instances: ManagedInstance[] = [];
  let postgres: TestPostgres | undefined;
  let store: TestObjectStore | undefined;
  const close = async (): Promise<void> => {
    await Promise.all(instances.map((instance) => instance.kill()));
    await Promise.all([postgres?.close(), store?.close()]);
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    [postgres, store] = await Promise.all([startPostgres(), startObjectStore()]);
    const tenants: string[] = [];
    for (let i = 1; i <= options.tenants; i++) {
      const slug = `t${String(i).padStart(2, '0')}`;
      const file = klsVariant('ost', 'kantonsspital', `Tenant ${slug}`);
      await store.put(`${PACK}/${slug}/kls.sqlite`, file);
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
      tenants.push(`${PACK}.${slug}`);
    }
    const appDb = await postgres.createDatabase('balancer');
    const env = {
      ...store.env(),
      APP_DB_URL: appDb,
      STORE_CACHE_MAX_MB: String(options.cacheMb),
      TENANT_FETCHES_PER_MINUTE: '1000000',
      GIT_WORKSPACES_DIR: '',
      ...options.env,
    };
    for (let i = 0; i < options.instances; i++) {
      const name = String.fromCharCode('a'.charCodeAt(0) + i);
      instances.push(managedInstance(name, await freePort(), path.join(root, name), env));
    }
    await Promise.all(instances.map((instance) => instance.start()));
    const restartCold = async (): Promise<void> => {
      await Promise.all(instances.map((instance) => instance.kill()));
      await Promise.all(instances.map((instance) => instance.start({ fresh: true })));
    };
    return { postgres, store, tenants, instances, tenantBytes: fs.statSync(demoKlsFile('ost', 'kantonsspital')).size, restartCold, close };
  } catch (err) {
    await close();
    throw err;
  }
}

interface ManagedInstance extends Instance {
  kill(): Promise<void>;
}

function managedInstance(name: string, port: number, dataDir: string, env: Record<string, string>): ManagedInstance {
  const served: ServedRequest[] = [];
  let child: ChildProcess | null = null;
  let exited: Promise<number | null> = Promise.resolve(null);
  const url = `http://127.0.0.1:${port}`;
  const alive = (): boolean => child !== null && child.exitCode === null && child.signalCode === null;
  return {
    name,
    port,
    url,
    served,
    get running() {
      return alive();
    },
    async start(options = {}) {
      if (alive()) throw new Error(`instance ${name} is running`);
      if (options.fresh === true) fs.rmSync(dataDir, { recursive: true, force: true });
      fs.mkdirSync(dataDir, { recursive: true });
      const process_ = spawn(process.execPath, [MAIN], {
        cwd: ROOT,
        env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = process_;
      exited = new Promise((resolve) => process_.once('exit', (code) => resolve(code)));
      let stderr = '';
      process_.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      let buffer = '';
      let listening: () => void = () => {};
      const listened = new Promise<void>((resolve) => (listening = resolve));
      process_.stdout!.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (!line.startsWith('{')) continue;
          try {
            const entry = JSON.parse(line) as { msg?: string; path?: string; status?: number; clientRequestId?: string; time?: string | number };
            if (entry.msg === 'request' && typeof entry.path === 'string')
              served.push({ path: entry.path, status: entry.status ?? 0, clientRequestId: entry.clientRequestId ?? null, time: new Date(entry.time ?? 0).getTime() });
            else if (entry.msg === 'listening') listening();
          } catch {
            // not a log line
          }
        }
      });
      await Promise.race([
        listened,
        exited.then((code) => {
          throw new Error(`instance ${name} exited (${code}) before listening: ${stderr.trim()}`);
        }),
      ]);
      await until(
        async () => {
          if (!alive()) throw new Error(`instance ${name} exited: ${stderr.trim()}`);
          return (await fetch(`${url}/health/ready`)).status === 200;
        },
        { deadline: 30_000, every: 50, what: `instance ${name} to be ready` },
      );
    },
    async kill() {
      if (alive()) child!.kill('SIGKILL');
      await exited;
    },
    async drain() {
      if (alive()) child!.kill('SIGTERM');
      return exited;
    },
    freeze(frozen) {
      if (!alive()) throw new Error(`instance ${name} is not running`);
      child!.kill(frozen ? 'SIGSTOP' : 'SIGCONT');
    },
  };
}
