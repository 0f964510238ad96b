import fs from 'node:fs';
import path from 'node:path';
import 'reflect-metadata';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { AppDbConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { APP_ENTITIES } from './entities.js';
import { appDbUnavailable, type AppDbFailure } from './failures.js';
import { MIGRATIONS } from './migrations/index.js';

/** The app database (views, notebooks, notes): TypeORM over SQLite (one machine) or PostgreSQL (several instances). */
export interface AppDatabase {
  readonly kind: AppDbConfig['kind'];
  /** The connected DataSource; a 503 problem while the database has not been reached (it is retried meanwhile). */
  readonly dataSource: DataSource;
  /** Resolves when a trivial query succeeds; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** How often a database that could not be reached at start is tried again. */
const RECONNECT_MS = 2000;
/** Key of the session-level advisory lock that lets one instance at a time run the migrations. */
const MIGRATION_LOCK = 741_852_963_001;

/**
 * Opens the app database and runs pending migrations. A database that cannot be reached does not stop the start:
 * the server answers (health 503, collaboration 503) and tries again every 2 s until it can.
 * `onFailure` hears of every use of the database while it is not reached.
 */
export async function openAppDatabase(config: AppDbConfig, log: Logger, onFailure: (failure: AppDbFailure | 'other') => void = () => {}): Promise<AppDatabase> {
  let current: DataSource | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    try {
      const dataSource = await initializeAppDatabase(config, log);
      if (closed) {
        await dataSource.destroy();
        return;
      }
      current = dataSource;
      log.info({ appDb: config.kind }, 'app database ready');
    } catch (err) {
      log.error({ appDb: config.kind, err: (err as Error).message }, `app database not reachable; trying again in ${RECONNECT_MS / 1000} s`);
      if (!closed) {
        retry = setTimeout(() => void connect(), RECONNECT_MS);
        retry.unref();
      }
    }
  };
  await connect();
  return {
    kind: config.kind,
    get dataSource() {
      if (current === null || !current.isInitialized) {
        onFailure('unreachable');
        throw appDbUnavailable('unreachable');
      }
      return current;
    },
    async ping() {
      if (current === null || !current.isInitialized) throw new Error('app database not connected');
      await current.query('SELECT 1 AS ok');
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      if (current?.isInitialized) await current.destroy();
    },
  };
}

/**
 * Connects to the app database and runs its pending migrations, as every start of the server does (also the
 * copy's target is made this way); rejects when the database cannot be reached or a migration fails.
 */
export async function initializeAppDatabase(config: AppDbConfig, log: Logger): Promise<DataSource> {
  const dataSource = new DataSource(dataSourceOptions(config, log));
  try {
    if (config.kind === 'sqlite') fs.mkdirSync(path.dirname(config.path), { recursive: true });
    await dataSource.initialize();
    // WAL + synchronous=FULL: an acknowledged write survives a killed process
    if (config.kind === 'sqlite') await dataSource.query('PRAGMA synchronous = FULL');
    await migrate(dataSource);
    return dataSource;
  } catch (err) {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    throw err;
  }
}

function dataSourceOptions(config: AppDbConfig, log: Logger): DataSourceOptions {
  const common = { entities: APP_ENTITIES, migrations: MIGRATIONS, migrationsRun: false, synchronize: false, logging: false } as const;
  if (config.kind === 'sqlite') {
    // `timeout` is SQLite's busy timeout: how long a write waits for another process's lock
    return { ...common, type: 'better-sqlite3', database: config.path, enableWAL: true, timeout: config.lockTimeoutMs };
  }
  return {
    ...common,
    type: 'postgres',
    // the URL goes to node-postgres as it is, so its sslmode (and every other parameter) is honoured
    url: config.url,
    poolSize: config.pool,
    connectTimeoutMS: 5000,
    applicationName: 'analytics-desk-server',
    extra: { idleTimeoutMillis: 30_000 },
    // an idle pooled connection that breaks (the database restarts) is dropped and replaced on demand
    poolErrorHandler: (err: Error) => log.warn({ err: err.message }, 'app database connection lost'),
  };
}

/** Runs pending migrations; on PostgreSQL one instance at a time, so that instances starting together run each once. */
async function migrate(dataSource: DataSource): Promise<void> {
  if (dataSource.options.type !== 'postgres') {
    await dataSource.runMigrations({ transaction: 'each' });
    return;
  }
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
  }
}
