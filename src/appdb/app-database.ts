import fs from 'node:fs';
import path from 'node:path';
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { APP_ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

/** The app database (views, notebooks, notes): TypeORM over SQLite in WAL mode. */
export interface AppDatabase {
  readonly dataSource: DataSource;
  /** Resolves when a trivial query succeeds; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const BUSY_TIMEOUT_MS = 5000;

/** Opens (creating if needed) the SQLite app database at `file` and runs pending migrations. */
export async function openAppDatabase(file: string): Promise<AppDatabase> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: file,
    enableWAL: true,
    timeout: BUSY_TIMEOUT_MS,
    entities: APP_ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    logging: false,
  });
  await dataSource.initialize();
  // WAL + synchronous=FULL: an acknowledged write survives a killed process (design.md section 6).
  await dataSource.query('PRAGMA synchronous = FULL');
  await dataSource.runMigrations({ transaction: 'each' });
  return {
    dataSource,
    async ping() {
      await dataSource.query('SELECT 1 AS ok');
    },
    async close() {
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
}
