import type Database from 'better-sqlite3';
import type pg from 'pg';
import 'reflect-metadata';
import { DataSource, MigrationExecutor, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../migrations/index.js';
import type { CopyConnection } from './connection.js';
import type { AppDbEndpoint } from './endpoints.js';
import { postgresCopyConnection } from './postgres-connection.js';
import { sqliteCopyConnection } from './sqlite-connection.js';

/** The copy's write connection to the target, and the server's migrations on that same connection. */
export interface TargetWriter {
  readonly connection: CopyConnection;
  /**
   * Runs the migrations the target lacks inside the transaction the connection has begun (beginWrite), so that
   * a copy that does not commit leaves no table it made nor a schema it upgraded.
   */
  migrate(): Promise<void>;
  /** Ends the connection (a transaction still open is rolled back with it). */
  close(): Promise<void>;
}

/**
 * Opens the target for writing through a TypeORM DataSource of the server's migrations (the code every start
 * runs), on one connection whose driver client the copy uses as well. A SQLite file is made when missing (its
 * folder must exist: the caller checks it).
 */
export async function openTargetWriter(to: AppDbEndpoint): Promise<TargetWriter> {
  const dataSource = new DataSource(writerOptions(to));
  await dataSource.initialize();
  try {
    const runner = dataSource.createQueryRunner();
    const client: unknown = await runner.connect();
    const close = async (): Promise<void> => {
      await runner.release().catch(() => undefined);
      await dataSource.destroy().catch(() => undefined);
    };
    const connection = to.config.kind === 'sqlite' ? sqliteCopyConnection(client as Database.Database, to.config.path, close) : postgresCopyConnection(client as pg.PoolClient, close);
    return {
      connection,
      async migrate() {
        const executor = new MigrationExecutor(dataSource, runner);
        // the transaction is the copy's: TypeORM begins and commits none of its own
        executor.transaction = 'none';
        await executor.executePendingMigrations();
      },
      close,
    };
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw err;
  }
}

function writerOptions(to: AppDbEndpoint): DataSourceOptions {
  const common = { migrations: MIGRATIONS, migrationsRun: false, synchronize: false, logging: false };
  if (to.config.kind === 'sqlite') return { ...common, type: 'better-sqlite3', database: to.config.path };
  // the URL goes to node-postgres as it is, as the server's does; one connection is all the copy uses
  return { ...common, type: 'postgres', url: to.config.url, poolSize: 1, connectTimeoutMS: 5000, applicationName: 'ads-appdb copy' };
}
