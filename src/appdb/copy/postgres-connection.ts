import pg from 'pg';
import type { CatalogTable, CopyConnection } from './connection.js';
import { CopyFailure } from './failures.js';
import { describeKey, type TableShape } from './rows.js';
import { quoted } from './tables.js';

/** How long connecting may take, as for the server's own pool. */
const CONNECT_TIMEOUT_MS = 5000;
/** PostgreSQL takes at most 65,535 parameters per statement; a statement of 1,000 rows is past the gain of larger ones. */
const MAX_PARAMETERS = 65_535;
const MAX_ROWS_PER_INSERT = 1000;

/** The table `name` of the connection's current schema, as a regclass expression over parameter `$1`. */
const TABLE_OF_PARAMETER = `to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1))`;

/** Key of the advisory lock the server takes to run its migrations (app-database.ts): the copy's migrations take it too. */
const MIGRATION_LOCK = 741_852_963_001;

/**
 * The copy's connection to a PostgreSQL app database: the URL goes to node-postgres as it is, as the server's
 * does, so its `sslmode` and every other parameter hold.
 */
export async function openPostgresCopyConnection(url: string, applicationName: string): Promise<CopyConnection> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: applicationName });
  // a connection lost while idle is reported by the next query; without a listener it would end the process
  client.on('error', () => undefined);
  await client.connect();
  return postgresCopyConnection(client, async () => {
    await client.end().catch(() => undefined);
  });
}

/**
 * The copy's connection over a connected node-postgres client (the target's is the one its migrations run on, so
 * that they are part of the copy's transaction); `close` ends it.
 */
export function postgresCopyConnection(client: pg.ClientBase, close: () => Promise<void>): CopyConnection {
  let inTransaction = false;
  let cursors = 0;
  const rows = async (text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> => (await client.query(text, values)).rows as Record<string, unknown>[];
  const arrays = async (text: string, values: unknown[] = []): Promise<unknown[][]> => (await client.query({ text, values, rowMode: 'array' })).rows as unknown[][];
  return {
    kind: 'postgres',
    async tableNames() {
      // the catalog, not information_schema, which lists only the tables the role holds a privilege on: an app
      // database the role may not read would pass for an empty one
      const found = await rows(
        `SELECT c.relname AS table_name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
      );
      return found.map((r) => String(r['table_name']));
    },
    async describe(table): Promise<CatalogTable | null> {
      const columns = await rows(
        'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position',
        [table],
      );
      if (columns.length === 0) return null;
      const key = await rows(
        `SELECT a.attname FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ` +
          `JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum WHERE i.indrelid = ${TABLE_OF_PARAMETER} AND i.indisprimary ORDER BY k.n`,
        [table],
      );
      return { columns: columns.map((c) => ({ name: String(c['column_name']), type: String(c['data_type']) })), key: key.map((k) => String(k['attname'])) };
    },
    query: (sql) => rows(sql),
    async count(table) {
      return Number((await rows(`SELECT COUNT(*) AS n FROM ${quoted(table)}`))[0]!['n']);
    },
    async beginSnapshot() {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      inTransaction = true;
    },
    async identity() {
      // the cluster (its system identifier, the same whatever host name or address reaches it) and the database;
      // a role that may not read pg_control_system() falls back to the postmaster's start time
      const cluster = await rows('SELECT system_identifier::text AS id FROM pg_control_system()').catch(async () => rows(`SELECT pg_postmaster_start_time()::text AS id`));
      const database = await rows('SELECT oid::text AS oid, current_database() AS name FROM pg_database WHERE datname = current_database()');
      return `postgres ${String(cluster[0]!['id'])} ${String(database[0]!['oid'])} ${String(database[0]!['name'])}`;
    },
    async beginWrite(lockWaitMs) {
      await client.query('BEGIN');
      inTransaction = true;
      await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(lockWaitMs))}`);
      // one migration at a time, as instances starting together take turns
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    },
    async lockTables(tables) {
      await client.query(`LOCK TABLE ${tables.map(quoted).join(', ')} IN EXCLUSIVE MODE`);
    },
    async commit() {
      await client.query('COMMIT');
      inTransaction = false;
    },
    async rollback() {
      if (!inTransaction) return;
      inTransaction = false;
      await client.query('ROLLBACK').catch(() => undefined);
    },
    async *rowsInKeyOrder(shape: TableShape, batchSize: number) {
      const columns = shape.columns.map((c) => quoted(c.name)).join(', ');
      // "C": bytewise, as SQLite's BINARY; the database's own collation may order text otherwise
      const order = shape.key.map((c) => (c.kind === 'text' ? `${quoted(c.name)} COLLATE "C"` : quoted(c.name))).join(', ');
      const cursor = `copy_rows_${++cursors}`;
      await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${columns} FROM ${quoted(shape.name)} ORDER BY ${order}`);
      let open = true;
      try {
        for (;;) {
          const batch = await arrays(`FETCH FORWARD ${Math.max(1, Math.floor(batchSize))} FROM ${cursor}`);
          if (batch.length === 0) break;
          yield batch;
        }
        await client.query(`CLOSE ${cursor}`);
        open = false;
      } finally {
        // a transaction that failed meanwhile has closed its cursors with it
        if (open) await client.query(`CLOSE ${cursor}`).catch(() => undefined);
      }
    },
    async deleteAll(table) {
      await client.query(`DELETE FROM ${quoted(table)}`);
    },
    async insert(shape: TableShape, all) {
      const width = shape.columns.length;
      const perStatement = Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / width)));
      const columns = shape.columns.map((c) => quoted(c.name)).join(', ');
      for (let start = 0; start < all.length; start += perStatement) {
        const chunk = all.slice(start, start + perStatement);
        const values: unknown[] = [];
        const tuples = chunk.map((row, r) => {
          for (const value of row) {
            // SQLite text may hold U+0000; PostgreSQL text cannot, and would refuse the statement less clearly
            if (typeof value === 'string' && value.includes('\u0000')) throw new CopyFailure(`${shape.name} ${describeKey(shape, row)}: a text holds the character U+0000, which PostgreSQL cannot store`);
            values.push(value);
          }
          return `(${row.map((_, c) => `$${r * width + c + 1}`).join(', ')})`;
        });
        await client.query(`INSERT INTO ${quoted(shape.name)} (${columns}) VALUES ${tuples.join(', ')}`, values);
      }
    },
    async continueSequences(table) {
      const owned = await rows(
        `SELECT a.attname, pg_get_serial_sequence(quote_ident(current_schema()) || '.' || quote_ident($1), a.attname) AS sequence ` +
          `FROM pg_attribute a WHERE a.attrelid = ${TABLE_OF_PARAMETER} AND a.attnum > 0 AND NOT a.attisdropped`,
        [table],
      );
      for (const column of owned) {
        if (column['sequence'] === null) continue;
        const highest = `(SELECT MAX(${quoted(String(column['attname']))}) FROM ${quoted(table)})`;
        // after the highest id; on an empty table the next value is the sequence's first
        await client.query(`SELECT setval($1::regclass, COALESCE(${highest}, 1), ${highest} IS NOT NULL)`, [column['sequence']]);
      }
    },
    close,
  };
}
