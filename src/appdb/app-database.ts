import fs from 'node:fs';
import path from 'node:path';
import 'reflect-metadata';
import { DataSource, type DataSourceOptions, type Logger as TypeOrmLogger } from 'typeorm';
import type { AppDbConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { APP_ENTITIES } from './entities.js';
import { appDbUnavailable, classifyAppDbError, type AppDbFailure } from './failures.js';
import { MIGRATIONS } from './migrations/index.js';
import { abandon } from './unit-of-work.js';

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
/** How much longer than a statement's own limit the client waits for its answer (a database that does not answer at all). */
const QUERY_TIMEOUT_SLACK_MS = 1000;
/** How long a health or readiness check waits for the database (PostgreSQL) before it counts as not answering. */
const PING_TIMEOUT_MS = 3000;
/** How long connecting may take, and waiting for a free pooled connection. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * A migration of the app database failed on a database that answers: this version of the server cannot use it.
 * It is not tried again (main.ts ends the start with exit code 3; see docs/deployment.md).
 */
export class AppDbMigrationError extends Error {
  constructor(cause: unknown) {
    super(`app database migration failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'AppDbMigrationError';
  }
}
/** Key of the session-level advisory lock that lets one instance at a time run the migrations. */
const MIGRATION_LOCK = 741_852_963_001;
/** How often an instance waiting for another's migrations asks for their lock again. */
const MIGRATION_LOCK_POLL_MS = 200;

/**
 * Opens the app database and runs pending migrations. A database that cannot be reached does not stop the start:
 * the server answers (health 503, collaboration 503) and tries again every 2 s until it can. A migration that
 * fails on a database that answers is no reason to try again: at start it rejects with AppDbMigrationError; on a
 * later attempt (the database was away at start) it is logged once and the database stays unused (503) until a
 * restart. `onFailure` hears of every use of the database while it is not reached.
 */
export async function openAppDatabase(config: AppDbConfig, log: Logger, onFailure: (failure: AppDbFailure | 'other') => void = () => {}): Promise<AppDatabase> {
  let current: DataSource | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let migrationFailed: AppDbMigrationError | null = null;
  const connect = async (atStart: boolean): Promise<void> => {
    try {
      const dataSource = await initializeAppDatabase(config, log);
      if (closed) {
        await dataSource.destroy();
        return;
      }
      current = dataSource;
      log.info({ appDb: config.kind }, 'app database ready');
    } catch (err) {
      if (err instanceof AppDbMigrationError) {
        if (atStart) throw err;
        migrationFailed = err;
        log.error({ appDb: config.kind, err: err.message }, 'app database migration failed; not tried again: the database stays unused until the server is restarted');
        return;
      }
      log.error({ appDb: config.kind, err: (err as Error).message }, `app database not reachable; trying again in ${RECONNECT_MS / 1000} s`);
      if (!closed) {
        retry = setTimeout(() => void connect(false), RECONNECT_MS);
        retry.unref();
      }
    }
  };
  await connect(true);
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
      if (migrationFailed !== null) throw migrationFailed;
      if (current === null || !current.isInitialized) throw new Error('app database not connected');
      if (current.options.type !== 'postgres') {
        await current.query('SELECT 1 AS ok');
        return;
      }
      // a database that does not answer (frozen, partitioned) is told within PING_TIMEOUT_MS, not the statement
      // limit, and the connection that waited is dropped: node-postgres keeps a timed-out query on its connection
      const runner = current.createQueryRunner();
      const query = runner.query('SELECT 1 AS ok');
      query.catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`app database: no answer within ${PING_TIMEOUT_MS} ms`));
          abandon(runner);
        }, PING_TIMEOUT_MS);
      });
      try {
        await Promise.race([query, expired]);
      } finally {
        clearTimeout(timer);
        void query.then(
          () => runner.release(),
          () => runner.release(),
        ).catch(() => undefined);
      }
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
 * copy's target is made this way); rejects when the database cannot be reached, with AppDbMigrationError when a
 * migration fails on a database that answers.
 */
export async function initializeAppDatabase(config: AppDbConfig, log: Logger): Promise<DataSource> {
  const dataSource = new DataSource(dataSourceOptions(config, log));
  try {
    if (config.kind === 'sqlite') fs.mkdirSync(path.dirname(config.path), { recursive: true });
    await dataSource.initialize();
    // WAL + synchronous=FULL: an acknowledged write survives a killed process
    if (config.kind === 'sqlite') await dataSource.query('PRAGMA synchronous = FULL');
    try {
      await migrate(dataSource);
    } catch (err) {
      // a database that went away or a lock not granted meanwhile is tried again, and so is an error of the driver
      // itself (the connection terminated, no answer in time: no SQLSTATE, no severity); anything else is the
      // migration's own failure
      throw classifyAppDbError(err) === null && !isDriverSideError(err) ? new AppDbMigrationError(err) : err;
    }
    return dataSource;
  } catch (err) {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    throw err;
  }
}

/**
 * A query that failed in node-postgres without an answer of the database: TypeORM's QueryFailedError whose driver
 * error carries no severity (every error the database reports has one), such as "Connection terminated
 * unexpectedly" or "Query read timeout".
 */
function isDriverSideError(err: unknown): boolean {
  const driverError = (err as { driverError?: unknown } | null)?.driverError;
  return driverError instanceof Error && typeof (driverError as { severity?: unknown }).severity !== 'string';
}

function dataSourceOptions(config: AppDbConfig, log: Logger): DataSourceOptions {
  // TypeORM writes its migration lines to the console whatever `logging` says: they go to the log at debug, and a
  // failure is reported once, by the caller (AppDbMigrationError)
  const logger: TypeOrmLogger = {
    logQuery: () => {},
    logQueryError: () => {},
    logQuerySlow: () => {},
    logSchemaBuild: () => {},
    logMigration: (message) => log.debug({ appDb: config.kind }, message),
    log: () => {},
  };
  const common = { entities: APP_ENTITIES, migrations: MIGRATIONS, migrationsRun: false, synchronize: false, logging: false, logger } as const;
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
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    applicationName: 'analytics-desk-server',
    extra: {
      idleTimeoutMillis: 30_000,
      // the database's own limits, for every statement and transaction of every connection (docs/configuration.md)
      statement_timeout: config.statementTimeoutMs,
      lock_timeout: config.lockTimeoutMs,
      idle_in_transaction_session_timeout: config.idleInTransactionTimeoutMs,
      // the client's, for a database that does not answer at all (frozen, partitioned); a unit of work gives up
      // sooner, at APP_DB_TRANSACTION_TIMEOUT_MS (src/appdb/unit-of-work.ts)
      query_timeout: Math.max(config.statementTimeoutMs, config.transactionTimeoutMs) + QUERY_TIMEOUT_SLACK_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    },
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
    // another instance's migrations may take longer than any one statement may wait: asked again until granted
    while (!((await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK])) as { locked: boolean }[])[0]!.locked) {
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
    }
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
  }
}
