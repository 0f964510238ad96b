import { expect } from 'chai';
import path from 'node:path';
import { pino } from 'pino';
import { DataSource } from 'typeorm';
import { AppDbMigrationError, openAppDatabase, type AppDatabase } from '../../src/appdb/app-database.js';
import { APP_ENTITIES } from '../../src/appdb/entities.js';
import { MIGRATIONS } from '../../src/appdb/migrations/index.js';
import { NotebookRow } from '../../src/appdb/notebook.entity.js';
import { UnitOfWork } from '../../src/appdb/unit-of-work.js';
import { APP_DB_DEFAULT_SIZES, type AppDbConfig } from '../../src/config.js';
import { Problem } from '../../src/common/problems.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));
const silent = pino({ level: 'silent' });
const SIZES = APP_DB_DEFAULT_SIZES;
/** The units of work of an app database, as createDeps builds them. */
const unitsOf = (appDb: AppDatabase, config: AppDbConfig): UnitOfWork => new UnitOfWork(appDb, { transactionTimeoutMs: config.transactionTimeoutMs, onFailure: () => {} });

/**
 * The app database of each dialect, new and empty for every test. `lockWaiters`: how many writes of the database
 * wait for a lock, where another connection can see it (PostgreSQL's pg_locks). SQLite has none: a write waiting
 * for another connection's lock waits inside better-sqlite3's synchronous call, so nothing else of the process
 * runs meanwhile, a holder in the same process included.
 */
const DIALECTS: { name: string; config: () => Promise<{ config: AppDbConfig; remove: () => void }>; lockWaiters?: (appDb: AppDatabase) => Promise<number> }[] = [
  {
    name: 'SQLite',
    config: async () => {
      const dir = tempDir('ads-uow-');
      return { config: { kind: 'sqlite', path: path.join(dir.dir, 'app.sqlite'), ...SIZES }, remove: dir.remove };
    },
  },
  {
    name: 'PostgreSQL',
    config: async () => ({ config: { kind: 'postgres', url: await (await sharedPostgres()).createDatabase('uow'), ...SIZES }, remove: () => {} }),
    lockWaiters: async (appDb) => {
      const [row] = (await appDb.dataSource.query(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      )) as { n: number }[];
      return row?.n ?? 0;
    },
  },
];

/**
 * Inserts the row `ost.held`, then has `units` update it and hold the write lock (SQLite: the file's; PostgreSQL: the
 * key's) until `release`; `done` settles when that unit has committed.
 */
async function holdLock(units: UnitOfWork): Promise<{ release: () => void; done: Promise<void> }> {
  await units.write('held', (m) => m.insert(NotebookRow, { tenantId: 'ost.held', createdAt: '0', updatedAt: '0' }));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const holds = new Promise<void>((resolve) => (holding = resolve));
  const done = units.write('held', async (m) => {
    await m.update(NotebookRow, { tenantId: 'ost.held' }, { updatedAt: 'holder' });
    holding();
    await held;
  });
  await holds;
  return { release, done };
}

for (const dialect of DIALECTS) {
  describe(`app database units of work on ${dialect.name} (src/appdb/unit-of-work.ts)`, function () {
    this.timeout(60_000);
    let config: AppDbConfig;
    let remove: () => void;
    let appDb: AppDatabase;
    let units: UnitOfWork;
    beforeEach(async () => {
      ({ config, remove } = await dialect.config());
      appDb = await openAppDatabase(config, silent);
      units = unitsOf(appDb, config);
    });
    afterEach(async () => {
      await appDb.close();
      remove();
    });

    it('upgrades a database of the previous release that holds data: the last migration applies, the data stays, writes go on', async () => {
      // a new database, made and written by the migrations of the release before the last one
      const { config: older, remove: removeOlder } = await dialect.config();
      const options =
        older.kind === 'sqlite'
          ? ({ type: 'better-sqlite3', database: older.path } as const)
          : ({ type: 'postgres', url: older.url } as const);
      const previous = new DataSource({ ...options, entities: APP_ENTITIES, migrations: MIGRATIONS.slice(0, -1), logging: false });
      try {
        await previous.initialize();
        await previous.runMigrations({ transaction: 'each' });
        await previous.getRepository(NotebookRow).insert({ tenantId: 'ost.old', createdAt: '1', updatedAt: '1' });
        await previous.destroy();
        const upgraded = await openAppDatabase(older, silent);
        try {
          const ran = (await upgraded.dataSource.query('SELECT name FROM migrations ORDER BY id')) as { name: string }[];
          expect(ran.map((r) => r.name)).to.deep.equal(MIGRATIONS.map((migration) => new migration().name));
          const upgradedUnits = unitsOf(upgraded, older);
          expect(await upgradedUnits.read((m) => m.countBy(NotebookRow, { tenantId: 'ost.old' }))).to.equal(1);
          await upgradedUnits.write('old', (m) => m.update(NotebookRow, { tenantId: 'ost.old' }, { updatedAt: '2' }));
          await upgradedUnits.write('new', (m) => m.insert(NotebookRow, { tenantId: 'ost.new', createdAt: '2', updatedAt: '2' }));
          expect((await upgradedUnits.read((m) => m.findOneByOrFail(NotebookRow, { tenantId: 'ost.old' }))).updatedAt).to.equal('2');
          expect(await upgradedUnits.read((m) => m.countBy(NotebookRow, {}))).to.equal(2);
        } finally {
          await upgraded.close();
        }
      } finally {
        if (previous.isInitialized) await previous.destroy();
        removeOlder();
      }
    });

    it('runs the migrations: the tables of views, notebooks, notes and cells exist', async () => {
      const runner = appDb.dataSource.createQueryRunner();
      try {
        for (const table of ['saved_views', 'notebooks', 'notes', 'cells']) expect(await runner.hasTable(table), table).to.equal(true);
      } finally {
        await runner.release();
      }
    });

    it('never interleaves two write units of one key, even when they await between read and write', async () => {
      // PostgreSQL: half of them from a second instance. SQLite's busy wait blocks its process, so a second
      // instance must be another process: test/api/add-notebook-cell-processes.test.ts does that.
      const second = config.kind === 'postgres' ? await openAppDatabase(config, silent) : appDb;
      const secondUnits = second === appDb ? units : unitsOf(second, config);
      try {
        await units.write('counter', (m) => m.insert(NotebookRow, { tenantId: 'ost.counter', createdAt: '0', updatedAt: '0' }));
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (i % 2 === 0 ? units : secondUnits).write('counter', async (m) => {
              const row = await m.findOneByOrFail(NotebookRow, { tenantId: 'ost.counter' });
              await tick(); // other requests get the event loop here
              await m.update(NotebookRow, { tenantId: 'ost.counter' }, { updatedAt: String(Number(row.updatedAt) + 1) });
            }),
          ),
        );
        const row = await units.read((m) => m.findOneByOrFail(NotebookRow, { tenantId: 'ost.counter' }));
        expect(row.updatedAt).to.equal('50');
      } finally {
        if (second !== appDb) await second.close();
      }
    });

    it('rolls a failed write unit back, and a read started meanwhile never sees its uncommitted row', async () => {
      const failing = units.write('ghost', async (m) => {
        await m.insert(NotebookRow, { tenantId: 'ost.ghost', createdAt: '1', updatedAt: '1' });
        await tick();
        throw new Error('handler failed');
      });
      const seen = units.read((m) => m.findOneBy(NotebookRow, { tenantId: 'ost.ghost' }));
      const error = await failing.then(
        () => null,
        (err: Error) => err,
      );
      expect(error?.message).to.equal('handler failed');
      expect(await seen).to.equal(null);
      expect(await units.read((m) => m.countBy(NotebookRow, { tenantId: 'ost.ghost' }))).to.equal(0);
    });

    it('answers 503 with Retry-After when another instance holds the lock longer than the lock timeout, and keeps the data', async () => {
      const impatientConfig = { ...config, lockTimeoutMs: 300 };
      const impatient = await openAppDatabase(impatientConfig, silent);
      try {
        const { release: releaseHolder, done: holder } = await holdLock(units);
        // nothing lets the holder go before the refused write ends: only the lock timeout can end it
        const refused = await unitsOf(impatient, impatientConfig).write('held', (m) => m.update(NotebookRow, { tenantId: 'ost.held' }, { updatedAt: 'refused' })).then(
          () => null,
          (err: unknown) => err,
        );
        expect(refused).to.be.instanceOf(Problem);
        expect((refused as Problem).status).to.equal(503);
        expect((refused as Problem).detail).to.match(/did not grant the lock this write needs in time/);
        expect((refused as Problem).facts.retryAfterSeconds).to.equal(1);
        releaseHolder();
        await holder;
        const row = await units.read((m) => m.findOneByOrFail(NotebookRow, { tenantId: 'ost.held' }));
        expect(row.updatedAt).to.equal('holder');
      } finally {
        await impatient.close();
      }
    });

    const lockWaiters = dialect.lockWaiters;
    if (lockWaiters !== undefined) {
      it('completes a write that waits for another instance\'s lock once the holder lets go within the lock timeout', async () => {
        const patientConfig = { ...config, lockTimeoutMs: 60_000 };
        const patient = await openAppDatabase(patientConfig, silent);
        try {
          const { release: releaseHolder, done: holder } = await holdLock(units);
          const waiter = unitsOf(patient, patientConfig).write('held', async (m) => {
            const seen = await m.findOneByOrFail(NotebookRow, { tenantId: 'ost.held' });
            await m.update(NotebookRow, { tenantId: 'ost.held' }, { updatedAt: `after ${seen.updatedAt}` });
            return seen.updatedAt;
          });
          await until(async () => (await lockWaiters(appDb)) === 1, { what: 'the second write to wait for the lock' });
          releaseHolder();
          await holder;
          // it read what the holder committed, and its own write is stored
          expect(await waiter).to.equal('holder');
          const row = await units.read((m) => m.findOneByOrFail(NotebookRow, { tenantId: 'ost.held' }));
          expect(row.updatedAt).to.equal('after holder');
        } finally {
          await patient.close();
        }
      });
    }
  });
}

describe('app database on PostgreSQL: start, migrations, outage', function () {
  this.timeout(60_000);

  it('runs each migration once when instances start at the same moment', async () => {
    const url = await (await sharedPostgres()).createDatabase('migrate');
    const instances = await Promise.all(Array.from({ length: 4 }, () => openAppDatabase({ kind: 'postgres', url, ...SIZES }, silent)));
    try {
      const ran = (await instances[0]!.dataSource.query('SELECT name FROM migrations ORDER BY id')) as { name: string }[];
      // every migration of the code, each once, in order
      expect(ran.map((r) => r.name)).to.deep.equal(MIGRATIONS.map((migration) => new migration().name));
    } finally {
      await Promise.all(instances.map((db) => db.close()));
    }
  });

  it('starts without a reachable database, answers 503 meanwhile, and connects once it answers', async () => {
    const postgres = await sharedPostgres();
    const url = await postgres.createDatabase('late');
    await postgres.stop();
    let appDb: AppDatabase | null = null;
    try {
      appDb = await openAppDatabase({ kind: 'postgres', url, ...SIZES }, silent);
      expect(() => appDb!.dataSource).to.throw(Problem, /does not answer/);
      await appDb.ping().then(
        () => expect.fail('ping answered'),
        () => undefined,
      );
      await postgres.start();
      const connecting = appDb;
      await until(
        () =>
          connecting.ping().then(
            () => true,
            () => false,
          ),
        { deadline: 10_000, every: 100, what: 'the database to answer a ping' },
      );
      expect(await unitsOf(appDb, { kind: 'postgres', url, ...SIZES }).read((m) => m.countBy(NotebookRow, {}))).to.equal(0);
    } finally {
      await postgres.start().catch(() => undefined);
      await appDb?.close();
    }
  });

  it('honours sslmode: require against a server without TLS does not connect', async () => {
    const url = await (await sharedPostgres()).createDatabase('tls');
    const appDb = await openAppDatabase({ kind: 'postgres', url: `${url}?sslmode=require`, ...SIZES }, silent);
    try {
      expect(() => appDb.dataSource).to.throw(Problem);
      const plain = await openAppDatabase({ kind: 'postgres', url: `${url}?sslmode=disable`, ...SIZES }, silent);
      await plain.ping();
      await plain.close();
    } finally {
      await appDb.close();
    }
  });

  it('refuses a write whose COMMIT reaches the database after the commit deadline the unit set: nothing is saved', async () => {
    const url = await (await sharedPostgres()).createDatabase('deadline');
    const config: AppDbConfig = { kind: 'postgres', url, ...SIZES };
    const appDb = await openAppDatabase(config, silent);
    try {
      const units = unitsOf(appDb, config);
      const late = await units
        .write('late', async (m) => {
          await m.insert(NotebookRow, { tenantId: 'ost.late', createdAt: '0', updatedAt: '0' });
          // as a COMMIT read only after a frozen database resumed: the deadline is in the past
          await m.query("SELECT set_config('ads.commit_by', '0', true)");
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(late).to.be.instanceOf(Problem);
      expect((late as Problem).status).to.equal(503);
      expect((late as Problem).detail).to.match(/does not answer/);
      expect(await units.read((m) => m.countBy(NotebookRow, { tenantId: 'ost.late' }))).to.equal(0);
      // a write within its deadline commits
      await units.write('late', (m) => m.insert(NotebookRow, { tenantId: 'ost.late', createdAt: '0', updatedAt: '0' }));
      expect(await units.read((m) => m.countBy(NotebookRow, { tenantId: 'ost.late' }))).to.equal(1);
    } finally {
      await appDb.close();
    }
  });

  it('a COMMIT sent to a frozen backend: 503 "may have been saved" within the limit, and the database refuses it when it resumes', async () => {
    const url = await (await sharedPostgres()).createDatabase('frozencommit');
    const config: AppDbConfig = { kind: 'postgres', url, ...SIZES, transactionTimeoutMs: 1500 };
    const appDb = await openAppDatabase(config, silent);
    let frozen: number | null = null;
    try {
      const units = unitsOf(appDb, config);
      const started = performance.now();
      const answer = await units
        .write('frozen', async (m) => {
          await m.insert(NotebookRow, { tenantId: 'ost.frozen', createdAt: '0', updatedAt: '0' });
          const [{ pid }] = (await m.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
          // the backend stops before the unit sends its COMMIT: the COMMIT waits in its socket
          frozen = pid;
          process.kill(pid, 'SIGSTOP');
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(performance.now() - started).to.be.below(1500 + 1000);
      expect(answer).to.be.instanceOf(Problem);
      expect((answer as Problem).status).to.equal(503);
      expect((answer as Problem).detail).to.match(/may have been saved/);
      process.kill(frozen!, 'SIGCONT');
      const stopped = frozen!;
      frozen = null;
      // the backend reads the COMMIT, the commit deadline refuses it, then it reads the end of its connection
      await until(async () => ((await appDb.dataSource.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [stopped])) as { n: number }[])[0]!.n === 0, {
        what: 'the resumed backend to end',
      });
      expect(await units.read((m) => m.countBy(NotebookRow, { tenantId: 'ost.frozen' }))).to.equal(0);
    } finally {
      if (frozen !== null) process.kill(frozen, 'SIGCONT');
      await appDb.close();
    }
  });

  it('answers a unit within APP_DB_TRANSACTION_TIMEOUT_MS while a statement never ends, and rolls it back', async () => {
    const url = await (await sharedPostgres()).createDatabase('bounded');
    const config: AppDbConfig = { kind: 'postgres', url, ...SIZES, transactionTimeoutMs: 600 };
    const appDb = await openAppDatabase(config, silent);
    try {
      const units = unitsOf(appDb, config);
      const started = performance.now();
      const slow = await units
        .write('slow', async (m) => {
          await m.insert(NotebookRow, { tenantId: 'ost.slow', createdAt: '0', updatedAt: '0' });
          await m.query('SELECT pg_sleep(3)');
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      const tookMs = performance.now() - started;
      expect(slow).to.be.instanceOf(Problem);
      expect((slow as Problem).status).to.equal(503);
      expect((slow as Problem).facts.retryAfterSeconds).to.equal(5);
      expect(tookMs).to.be.below(2000);
      // the dropped connection's transaction is rolled back: the row never appears
      const row = await until(
        async () => {
          const [activity] = (await appDb.dataSource.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep%' AND state = 'active'")) as { n: number }[];
          return activity!.n === 0;
        },
        { what: 'the abandoned statement to end' },
      );
      expect(row).to.equal(true);
      expect(await units.read((m) => m.countBy(NotebookRow, { tenantId: 'ost.slow' }))).to.equal(0);
    } finally {
      await appDb.close();
    }
  });

  it('reports a failing migration as such at start (AppDbMigrationError), not as a database to try again', async () => {
    const url = await (await sharedPostgres()).createDatabase('badmigration');
    // a table of the same name without the columns a migration indexes
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE notes (x integer)');
    await client.end();
    const opened = await openAppDatabase({ kind: 'postgres', url, ...SIZES }, silent).then(
      (db) => db,
      (err: unknown) => err,
    );
    expect(opened).to.be.instanceOf(AppDbMigrationError);
    expect((opened as Error).message).to.match(/^app database migration failed: .*tenant_id/);
  });
});
