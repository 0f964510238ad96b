import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { copyAppDatabase } from '../../src/appdb/copy/copy.js';
import { appDbEndpoint } from '../../src/appdb/copy/endpoints.js';
import { CopyInterrupted } from '../../src/appdb/copy/failures.js';
import { MIGRATIONS } from '../../src/appdb/migrations/index.js';
import { appdbCommand, bulkAppDatabase, spawnAppdbCommand, stderrLines, type CommandRun } from '../helpers/appdb-copy.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';

/** Passwords these tests use: none may appear in any output. */
const SECRETS = ['ads-test', 'wrong-pw', 'pa/ss?w#rd', 'pa%2Fss', 'S3cretpw'];

function expectNoSecret(run: { stdout: string; stderr: string }): void {
  for (const secret of SECRETS) expect(run.stdout + run.stderr, secret).not.to.include(secret);
}

/** Exit code `code` and one `ads-appdb: ` line on stderr matching `line`, no secret anywhere. */
function expectRefusal(run: CommandRun, code: number, line: RegExp): void {
  expect(run.code, run.stderr).to.equal(code);
  expect(stderrLines(run).filter((l) => l.startsWith('ads-appdb: ')), run.stderr).to.have.length(1);
  expect(stderrLines(run).at(-1)).to.match(line);
  expectNoSecret(run);
}

/** Runs SQL as the test server's superuser on the database of `url`. */
async function admin(url: string, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

describe('ads-appdb copy: secrets, identity, refusals of its own', function () {
  this.timeout(60_000);
  const folder = tempDir('ads-appdb-identity-');
  const sourceFile = path.join(folder.dir, 'source.sqlite');
  const source = `sqlite:${sourceFile}`;
  before(async () => bulkAppDatabase(sourceFile, 1200));
  after(() => folder.remove());

  it('prints no password of the user info or the query in a dry run or an error line; a reserved character works percent-encoded and is refused unencoded without being echoed', async () => {
    const postgres = await sharedPostgres();
    const target = await postgres.createDatabase('secrets');
    const inQuery = target.replace('postgres:ads-test@', 'postgres@') + '?password=ads-test&sslmode=disable';
    const dryRun = await appdbCommand('copy', '--from', source, '--to', inQuery, '--dry-run');
    expect(dryRun.code, dryRun.stderr).to.equal(0);
    expect(dryRun.stdout).to.match(/^dry run, nothing written: sqlite:.*source\.sqlite -> postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+\?password=\*\*\*&sslmode=disable$/m);
    expectNoSecret(dryRun);
    const userinfo = await appdbCommand('copy', '--from', source, '--to', target, '--dry-run');
    expect(userinfo.stdout).to.match(/-> postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/);
    expectNoSecret(userinfo);
    expectRefusal(
      await appdbCommand('copy', '--from', source, '--to', `postgres://postgres@127.0.0.1:${postgres.port}/postgres?password=wrong-pw`),
      2,
      /^ads-appdb: cannot open the target postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?password=\*\*\*: password authentication failed for user "postgres"$/,
    );

    // a role whose password holds /, ? and #
    const database = target.slice(target.lastIndexOf('/') + 1);
    await admin(target, `CREATE ROLE slash LOGIN PASSWORD 'pa/ss?w#rd'`, `GRANT ALL ON DATABASE "${database}" TO slash`, 'GRANT ALL ON SCHEMA public TO slash');
    const encoded = `postgres://slash:${encodeURIComponent('pa/ss?w#rd')}@127.0.0.1:${postgres.port}/${database}`;
    const works = await appdbCommand('copy', '--from', source, '--to', encoded, '--dry-run');
    expect(works.code, works.stderr).to.equal(0);
    expect(works.stdout).to.include('postgres://slash:***@127.0.0.1');
    expectNoSecret(works);
    // the writing connection (TypeORM's, as the server's) reads the encoded password alike
    const copied = await appdbCommand('copy', '--from', source, '--to', encoded);
    expect(copied.code, copied.stderr).to.equal(0);
    expectNoSecret(copied);
    const unencoded = `postgres://slash:pa/ss?w#rd@127.0.0.1:${postgres.port}/${database}`;
    expectRefusal(
      await appdbCommand('copy', '--from', source, '--to', unencoded, '--dry-run'),
      2,
      /^ads-appdb: --to must be sqlite:<path> or postgres:\/\/user:password@host:port\/database \(got "postgres:\*\*\*"; percent-encode reserved characters in the user name and password \(\/ as %2F\)\)$/,
    );
    expect(stderrLines(await appdbCommand('copy', '--from', source, '--to', `postgres://slash:123/S3cretpw@127.0.0.1:${postgres.port}/x`)).join('\n')).not.to.include('S3cretpw');
  });

  it('prints no password when the server refuses an APP_DB_URL (exit 2, one line)', () => {
    for (const url of ['postgres://u@h:99999/x?password=S3cretpw', 'postgres://desk:S3cretpw/x@db.example/desk', 'postgres://u@db.example/desk?password=S3cretpw&sslmode=sometimes']) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, APP_DB_URL: url, PORT: '0', LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 30_000 });
      expect(run.status, run.stderr).to.equal(2);
      expect(run.stderr.trim().split('\n'), url).to.have.length(1);
      expect(run.stderr).to.match(/^invalid configuration: APP_DB_URL /);
      expectNoSecret(run);
    }
    // a URL in a setting that is not a URL setting is masked all the same
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, TRUST_PROXY: 'https://proxy:S3cretpw@proxy.example', PORT: '0', LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 30_000 });
    expect(run.status, run.stderr).to.equal(2);
    expect(run.stderr).to.include('TRUST_PROXY entries must be IP addresses');
    expect(run.stderr).to.include('(got "https://proxy:***@proxy.example/")');
    expectNoSecret(run);
  });

  it('refuses a hard link, another path and a symbolic link to the source file as the target (exit 2), --replace or not', async () => {
    const hardLink = path.join(folder.dir, 'hard-link.sqlite');
    fs.linkSync(sourceFile, hardLink);
    const symbolic = path.join(folder.dir, 'symbolic.sqlite');
    fs.symlinkSync(sourceFile, symbolic);
    const before = fs.readFileSync(sourceFile);
    for (const target of [hardLink, symbolic, path.join(folder.dir, '.', 'sub', '..', 'source.sqlite')]) {
      if (target.includes('sub')) fs.mkdirSync(path.join(folder.dir, 'sub'), { recursive: true });
      expectRefusal(await appdbCommand('copy', '--from', source, '--to', `sqlite:${target}`, '--replace'), 2, /^ads-appdb: --from and --to name the same database \(sqlite:/);
    }
    expect(fs.readFileSync(sourceFile).equals(before)).to.equal(true);
  });

  it('refuses a PostgreSQL database reached as localhost and as 127.0.0.1 (exit 2), and --replace does not run', async () => {
    const postgres = await sharedPostgres();
    const database = await postgres.createDatabase('identity');
    expect((await appdbCommand('copy', '--from', source, '--to', database)).code).to.equal(0);
    const otherName = database.replace('@127.0.0.1:', '@localhost:');
    expect(otherName).not.to.equal(database);
    expectRefusal(await appdbCommand('copy', '--from', database, '--to', otherName, '--replace'), 2, /^ads-appdb: --from and --to name the same database \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\w+, postgres:\/\/postgres:\*\*\*@localhost:/);
    // another database of the same server is another database
    const other = await postgres.createDatabase('identity_other');
    const copied = await appdbCommand('copy', '--from', database, '--to', other.replace('@127.0.0.1:', '@localhost:'));
    expect(copied.code, copied.stderr).to.equal(0);
  });

  it('refuses a read-only target (exit 2, one line) and writes nothing', async () => {
    const target = await (await sharedPostgres()).createDatabase('readonly');
    const database = target.slice(target.lastIndexOf('/') + 1);
    await admin(target, `ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
    expectRefusal(
      await appdbCommand('copy', '--from', source, '--to', target),
      2,
      /^ads-appdb: cannot write the target postgres:\/\/postgres:\*\*\*@.*: cannot execute CREATE TABLE in a read-only transaction \(nothing written: /,
    );
    // an app database with nothing to migrate: its first write is refused, not its migrations (it exited 1); the
    // same holds for a read-only SQLite file ("attempt to write a readonly database")
    const app = await (await sharedPostgres()).createDatabase('readonly_app');
    expect((await appdbCommand('copy', '--from', source, '--to', app)).code).to.equal(0);
    await admin(app, `ALTER DATABASE "${app.slice(app.lastIndexOf('/') + 1)}" SET default_transaction_read_only = on`);
    const replaced = await appdbCommand('copy', '--from', source, '--to', app, '--replace');
    expect(replaced.code, replaced.stderr).to.equal(2);
    expect(stderrLines(replaced)).to.have.length(2);
    expect(stderrLines(replaced)[0]).to.match(/^ads-appdb: --replace: deleting what the target holds/);
    expect(stderrLines(replaced)[1]).to.match(/^ads-appdb: cannot write the target postgres:\/\/postgres:\*\*\*@.*: cannot execute DELETE in a read-only transaction \(nothing written: /);
    expectNoSecret(replaced);
  });

  it('refuses an app database the role may not read, as source and as target (exit 2), rather than taking it for a new one', async () => {
    const database = await (await sharedPostgres()).createDatabase('unreadable');
    expect((await appdbCommand('copy', '--from', source, '--to', database)).code).to.equal(0);
    const name = database.slice(database.lastIndexOf('/') + 1);
    await admin(database, `CREATE ROLE reader_${name} LOGIN PASSWORD 'S3cretpw'`, `GRANT CONNECT ON DATABASE "${name}" TO reader_${name}`, `GRANT USAGE, CREATE ON SCHEMA public TO reader_${name}`);
    const asReader = database.replace('postgres:ads-test@', `reader_${name}:S3cretpw@`);
    for (const extra of [[], ['--dry-run']]) {
      expectRefusal(await appdbCommand('copy', '--from', source, '--to', asReader, '--replace', ...extra), 2, /^ads-appdb: cannot read the target postgres:\/\/reader_\w+:\*\*\*@.*: permission denied for table migrations$/);
    }
    expectRefusal(await appdbCommand('copy', '--from', asReader, '--to', `sqlite:${path.join(folder.dir, 'unread.sqlite')}`), 2, /^ads-appdb: cannot read the source postgres:\/\/reader_\w+:\*\*\*@.*: permission denied for table migrations$/);
    expect(fs.existsSync(path.join(folder.dir, 'unread.sqlite'))).to.equal(false);
  });

  it('refuses a SQLite target in a missing folder (exit 2) and makes no folder, and a symbolic link to no file; refuses a repeated option (exit 2)', async () => {
    const missing = path.join(folder.dir, 'no-such-folder', 'app.sqlite');
    for (const extra of [[], ['--dry-run']]) {
      expectRefusal(await appdbCommand('copy', '--from', source, '--to', `sqlite:${missing}`, ...extra), 2, /^ads-appdb: the target sqlite:.*app\.sqlite: its folder .*no-such-folder does not exist \(it is not made: make it first\)$/);
    }
    expect(fs.existsSync(path.dirname(missing))).to.equal(false);
    // a path with a line break is still one line
    expectRefusal(await appdbCommand('copy', '--from', source, '--to', `sqlite:${path.join(folder.dir, 'no\nfolder', 'app.sqlite')}`), 2, /^ads-appdb: the target sqlite:.*no\\nfolder\/app\.sqlite: its folder .*no\\nfolder does not exist/);
    // a symbolic link to no file: the link stays, and no file is made where it points
    const dangling = path.join(folder.dir, 'dangling.sqlite');
    fs.symlinkSync(path.join(folder.dir, 'nowhere.sqlite'), dangling);
    expectRefusal(await appdbCommand('copy', '--from', source, '--to', `sqlite:${dangling}`), 2, /^ads-appdb: the target sqlite:.*dangling\.sqlite is a symbolic link to a file that does not exist \(name the file itself\)$/);
    expect(fs.lstatSync(dangling).isSymbolicLink()).to.equal(true);
    expect(fs.existsSync(path.join(folder.dir, 'nowhere.sqlite'))).to.equal(false);
    const target = `sqlite:${path.join(folder.dir, 'never.sqlite')}`;
    expectRefusal(await appdbCommand('copy', '--from', source, '--from', 'sqlite:other.sqlite', '--to', target), 2, /^ads-appdb: --from given more than once; usage: /);
    expectRefusal(await appdbCommand('copy', '--from', source, '--to', target, '--dry-run', '--dry-run'), 2, /^ads-appdb: --dry-run given more than once; usage: /);
    expect(fs.existsSync(path.join(folder.dir, 'never.sqlite'))).to.equal(false);
  });

  it("turns node-postgres' warning on sslmode=require into one line", async () => {
    const postgres = await sharedPostgres();
    const run = await spawnAppdbCommand(['copy', '--from', `postgres://postgres:ads-test@127.0.0.1:${postgres.port}/postgres?sslmode=require`, '--to', `sqlite:${path.join(folder.dir, 'never.sqlite')}`]).done;
    expect(run.code, run.stderr).to.equal(2);
    expect(stderrLines(run)).to.have.length(2);
    expect(stderrLines(run)[0]).to.equal("ads-appdb: warning: SECURITY WARNING: The SSL modes 'prefer', 'require', and 'verify-ca' are treated as aliases for 'verify-full'.");
    expect(stderrLines(run)[1]).to.match(/^ads-appdb: cannot open the source postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres\?sslmode=require: The server does not support SSL connections$/);
    expectNoSecret(run);
  });
});

describe('ads-appdb copy: the migrations are part of the copy', function () {
  this.timeout(60_000);
  const folder = tempDir('ads-appdb-migrations-');
  const sourceFile = path.join(folder.dir, 'source.sqlite');
  before(async () => bulkAppDatabase(sourceFile, 3000));
  after(() => folder.remove());

  /** Copies with a batch of 500 rows and interrupts the copy when it starts on `table`. */
  async function interruptedCopy(to: string, table: string): Promise<unknown> {
    const interrupt = new AbortController();
    const request = { from: appDbEndpoint('source', '--from', `sqlite:${sourceFile}`), to: appDbEndpoint('target', '--to', to), replace: true, dryRun: false };
    const progress = { begin: (_: string, name: string) => name === table && interrupt.abort(), advance: () => undefined, end: () => undefined };
    const io = { out: () => undefined, warn: () => undefined, progress, signal: interrupt.signal };
    return copyAppDatabase(request, io, { batchSize: 500, lockWaitMs: 1000 }).catch((err: unknown) => err);
  }

  it('leaves no file when a copy into a new SQLite file does not commit', async () => {
    const target = path.join(folder.dir, 'new.sqlite');
    expect(await interruptedCopy(`sqlite:${target}`, 'cells')).to.be.instanceOf(CopyInterrupted);
    expect(fs.readdirSync(folder.dir).filter((name) => name.startsWith('new.sqlite'))).to.deep.equal([]);
  });

  it('never removes a new SQLite file another copy made: two copies into one new file at once', async () => {
    const target = `sqlite:${path.join(folder.dir, 'twice.sqlite')}`;
    // both look at the target before either makes it (each yields at its check for an interruption), then one holds
    // the write lock while the other waits for it in vain
    const copy = () => {
      const request = { from: appDbEndpoint('source', '--from', `sqlite:${sourceFile}`), to: appDbEndpoint('target', '--to', target), replace: false, dryRun: false };
      const io = { out: () => undefined, warn: () => undefined, signal: new AbortController().signal };
      return copyAppDatabase(request, io, { batchSize: 500, lockWaitMs: 100 }).then(
        () => 'copied',
        (err: unknown) => (err as Error).message,
      );
    };
    const outcomes = await Promise.all([copy(), copy()]);
    expect(outcomes, outcomes.join(' / ')).to.include('copied');
    expect(outcomes.find((o) => o !== 'copied')).to.match(/^cannot lock the target sqlite:/);
    const copied = new Database(path.join(folder.dir, 'twice.sqlite'), { readonly: true });
    expect(copied.prepare('SELECT COUNT(*) AS n FROM cells').get()).to.deep.equal({ n: 3000 });
    copied.close();
  });

  it('leaves a new PostgreSQL database without tables, and an older schema as old, when the copy does not commit', async () => {
    const postgres = await (await sharedPostgres()).createDatabase('migrations');
    expect(await interruptedCopy(postgres, 'cells')).to.be.instanceOf(CopyInterrupted);
    const client = new pg.Client({ connectionString: postgres });
    await client.connect();
    const tables = (await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`)).rows;
    await client.end();
    expect(tables).to.deep.equal([]);

    const older = path.join(folder.dir, 'older.sqlite');
    await bulkAppDatabase(older, 0);
    const db = new Database(older);
    db.exec("DELETE FROM migrations WHERE name LIKE 'AddRevisions%'");
    const migrations = (): string[] => (db.prepare('SELECT name FROM migrations ORDER BY id').all() as { name: string }[]).map((m) => m.name);
    const before = migrations();
    expect(before).to.have.length(MIGRATIONS.length - 1);
    expect(await interruptedCopy(`sqlite:${older}`, 'cells')).to.be.instanceOf(CopyInterrupted);
    expect(migrations()).to.deep.equal(before);
    db.close();
    // and a copy that commits brings it up to date
    expect((await appdbCommand('copy', '--from', `sqlite:${sourceFile}`, '--to', `sqlite:${older}`)).code).to.equal(0);
    const after = new Database(older, { readonly: true });
    expect(after.prepare('SELECT COUNT(*) AS n FROM migrations').get()).to.deep.equal({ n: MIGRATIONS.length });
    expect(after.prepare('SELECT COUNT(*) AS n FROM cells').get()).to.deep.equal({ n: 3000 });
    after.close();
  });
});
