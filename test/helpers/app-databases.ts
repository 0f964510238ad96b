import { sharedPostgres } from './postgres.js';

/** One kind of app database an API test runs against, and the environment that points a new server at it. */
export interface AppDatabaseUnderTest {
  readonly name: 'SQLite' | 'PostgreSQL';
  /** APP_DB_URL for a new, empty app database (SQLite: none, the server's own file under its DATA_DIR). */
  env(): Promise<Record<string, string>>;
}

/** The app databases the API tests of views, notebooks and notes run against. */
export const APP_DATABASES: readonly AppDatabaseUnderTest[] = [
  { name: 'SQLite', env: async () => ({}) },
  { name: 'PostgreSQL', env: async () => ({ APP_DB_URL: await (await sharedPostgres()).createDatabase('api') }) },
];

/** `describe(title, body)` once per app database, the title naming it. */
export function describeEachAppDatabase(title: string, body: (db: AppDatabaseUnderTest) => void): void {
  for (const db of APP_DATABASES) describe(`${title} [${db.name}]`, () => body(db));
}
