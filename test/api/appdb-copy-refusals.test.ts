import { expect } from 'chai';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { copyAppDatabase } from '../../src/appdb/copy/copy.js';
import { appDbEndpoint } from '../../src/appdb/copy/endpoints.js';
import { CopyRefusal } from '../../src/appdb/copy/failures.js';
import { MIGRATIONS } from '../../src/appdb/migrations/index.js';
import { appdbCommand, bulkAppDatabase, postgresContent, stderrLines, type CommandRun } from '../helpers/appdb-copy.js';
import { freePort } from '../helpers/ports.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';

/**
 * A refusal or failure: the exit code, and exactly one line on stderr (besides progress and what --replace deletes)
 * matching `line`, with no password in any output.
 */
function expectOneLine(run: CommandRun, code: number, line: RegExp): void {
  expect(run.code, run.stderr).to.equal(code);
  expect(stderrLines(run).filter((l) => l.startsWith('ads-appdb: ') && !l.startsWith('ads-appdb: --replace: ')), run.stderr).to.have.length(1);
  expect(stderrLines(run).at(-1)).to.match(line);
  for (const secret of ['ads-test', 'secret-pw', 'wrong-pw']) expect(run.stdout + run.stderr).not.to.include(secret);
}

/** The tables of a PostgreSQL database's public schema. */
async function postgresTables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)).rows.map((r: { table_name: string }) => r.table_name);
  } finally {
    await client.end();
  }
}

describe('ads-appdb copy: refusals', function () {
  this.timeout(60_000);
  const folder = tempDir('ads-appdb-refusals-');
  const sourceFile = path.join(folder.dir, 'source.sqlite');
  const source = `sqlite:${sourceFile}`;
  before(async () => bulkAppDatabase(sourceFile, 1200));
  after(() => folder.remove());

  it('refuses a target that holds data (exit 2, one line with its counts); --dry-run says so; --replace replaces it after saying what goes', async () => {
    const target = await (await sharedPostgres()).createDatabase('refusals');
    const first = await appdbCommand('copy', '--from', source, '--to', target);
    expect(first.code, first.stderr).to.equal(0);
    const held = await postgresContent(target);

    const refused = await appdbCommand('copy', '--from', source, '--to', target);
    expectOneLine(refused, 2, /^ads-appdb: the target postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\w+ holds data \(notes 3, cells 1,200\): nothing copied; --replace replaces it$/);
    const dryRun = await appdbCommand('copy', '--from', source, '--to', target, '--dry-run');
    expect(dryRun.code).to.equal(2);
    expect(dryRun.stdout).to.match(/^dry run, nothing written: /);
    expect(dryRun.stdout).to.match(/cells +1,200 rows/);
    expect(dryRun.stdout).to.include('the target holds data (notes 3, cells 1,200): refused without --replace');
    expect(await postgresContent(target)).to.equal(held);

    const replaceDryRun = await appdbCommand('copy', '--from', source, '--to', target, '--dry-run', '--replace');
    expect(replaceDryRun.code, replaceDryRun.stderr).to.equal(0);
    expect(replaceDryRun.stdout).to.include('--replace would delete what the target holds: notes 3, cells 1,200');
    const replaced = await appdbCommand('copy', '--from', source, '--to', target, '--replace');
    expect(replaced.code, replaced.stderr).to.equal(0);
    expect(replaced.stderr).to.include("ads-appdb: --replace: deleting what the target holds (notes 3, cells 1,200), in the copy's transaction");
    expect(replaced.stdout.split('\n').slice(1, 7)).to.deep.equal(first.stdout.split('\n').slice(1, 7));
    expect(await postgresContent(target)).to.equal(held);
  });

  it('leaves the target as it was when an insert fails mid-copy (exit 1, one line)', async () => {
    const target = await (await sharedPostgres()).createDatabase('failing');
    expect((await appdbCommand('copy', '--from', source, '--to', target)).code).to.equal(0);
    const held = await postgresContent(target);
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    await client.query(`CREATE FUNCTION refuse_cell() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'cell refused by the test'; END $$`);
    await client.query(`CREATE TRIGGER refuse_cell BEFORE INSERT ON cells FOR EACH ROW WHEN (NEW.position = 250) EXECUTE FUNCTION refuse_cell()`);
    await client.end();

    const failed = await appdbCommand('copy', '--from', source, '--to', target, '--replace');
    expectOneLine(failed, 1, /^ads-appdb: the copy failed and was rolled back, the target is as it was: cell refused by the test$/);
    expect(failed.stderr).to.include('copying notes: 3 rows, done');
    expect(await postgresContent(target)).to.equal(held);
  });

  it('leaves a SQLite target as it was when an insert fails mid-copy, and refuses text PostgreSQL cannot store (exit 1)', async () => {
    const targetFile = path.join(folder.dir, 'target.sqlite');
    expect((await appdbCommand('copy', '--from', source, '--to', `sqlite:${targetFile}`)).code).to.equal(0);
    const content = (): string => {
      const db = new Database(targetFile, { readonly: true });
      try {
        return ['notes', 'cells'].map((table) => JSON.stringify(db.prepare(`SELECT * FROM ${table} ORDER BY 1`).all())).join('\n');
      } finally {
        db.close();
      }
    };
    const held = content();
    const db = new Database(targetFile);
    db.exec(`CREATE TRIGGER refuse_cell BEFORE INSERT ON cells WHEN NEW.position = 250 BEGIN SELECT RAISE(ABORT, 'cell refused by the test'); END`);
    db.close();
    expectOneLine(await appdbCommand('copy', '--from', source, '--to', `sqlite:${targetFile}`, '--replace'), 1, /^ads-appdb: the copy failed and was rolled back, the target is as it was: cell refused by the test$/);
    expect(content()).to.equal(held);

    const withNul = path.join(folder.dir, 'nul.sqlite');
    fs.copyFileSync(sourceFile, withNul);
    const writer = new Database(withNul);
    writer.prepare(`INSERT INTO saved_views (view_id, tenant_id, entity, name, params, author, created_at, updated_at, revision) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run('6f1c2b9e-8d4a-4e2f-9b1c-3a5d7e9f1b2c', 'ost.kantonsspital', 'cost_centres', 'before\u0000after', '{}', null, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 1);
    writer.close();
    const target = await (await sharedPostgres()).createDatabase('nul');
    expectOneLine(
      await appdbCommand('copy', '--from', `sqlite:${withNul}`, '--to', target),
      1,
      /^ads-appdb: saved_views view_id=6f1c2b9e-8d4a-4e2f-9b1c-3a5d7e9f1b2c: a text holds the character U\+0000, which PostgreSQL cannot store; rolled back, the target is as it was$/,
    );
    // the migrations were part of the rolled-back transaction: the new database holds no table
    expect(await postgresTables(target)).to.deep.equal([]);
  });

  it('refuses a target another writer holds locked, once its lock wait is over (nothing written)', async () => {
    const silent = { out: () => undefined, warn: () => undefined };
    const settings = { batchSize: 1000, lockWaitMs: 200 };
    const postgresTarget = await (await sharedPostgres()).createDatabase('locked');
    expect((await appdbCommand('copy', '--from', source, '--to', postgresTarget)).code).to.equal(0);
    const held = await postgresContent(postgresTarget);
    const writer = new pg.Client({ connectionString: postgresTarget });
    await writer.connect();
    await writer.query('BEGIN');
    await writer.query(`UPDATE notes SET title = title WHERE note_id IN (SELECT note_id FROM notes LIMIT 1)`);
    const request = { from: appDbEndpoint('source', '--from', source), to: appDbEndpoint('target', '--to', postgresTarget), replace: true, dryRun: false };
    const refusal = await copyAppDatabase(request, silent, settings).catch((err: unknown) => err);
    await writer.query('ROLLBACK');
    await writer.end();
    expect(refusal).to.be.instanceOf(CopyRefusal);
    expect((refusal as Error).message).to.match(/^cannot lock the target postgres:\/\/postgres:\*\*\*@.*: canceling statement due to lock timeout \(no write lock within 0\.2 s: stop the servers on it first\)$/);
    expect(await postgresContent(postgresTarget)).to.equal(held);

    const sqliteTarget = path.join(folder.dir, 'locked.sqlite');
    expect((await appdbCommand('copy', '--from', source, '--to', `sqlite:${sqliteTarget}`)).code).to.equal(0);
    const other = new Database(sqliteTarget);
    other.exec('BEGIN IMMEDIATE');
    const busy = await copyAppDatabase({ ...request, to: appDbEndpoint('target', '--to', `sqlite:${sqliteTarget}`) }, silent, settings).catch((err: unknown) => err);
    other.exec('ROLLBACK');
    other.close();
    expect((busy as Error).message).to.match(/^cannot lock the target sqlite:.*locked\.sqlite: database is locked \(no write lock within 0\.2 s/);
  });

  it('refuses a bad URL, an unknown scheme and bad arguments (exit 2, one line, the password masked)', async () => {
    const target = `sqlite:${path.join(folder.dir, 'never.sqlite')}`;
    expectOneLine(await appdbCommand('copy', '--from', source, '--to', 'mysql://desk:secret-pw@db.example/desk'), 2, /^ads-appdb: --to must be sqlite:<path> or postgres:\/\/user:password@host:port\/database \(got "mysql:\/\/desk:\*\*\*@db\.example\/desk"\)$/);
    expectOneLine(await appdbCommand('copy', '--from', 'postgres://desk:secret-pw@/desk', '--to', target), 2, /^ads-appdb: --from must be sqlite:<path> or postgres:/);
    expectOneLine(await appdbCommand('copy', '--from', 'sqlite:', '--to', target), 2, /^ads-appdb: --from must be/);
    expectOneLine(await appdbCommand('copy', '--from', source, '--to', 'postgres://desk:secret-pw@db.example/desk?sslmode=sometimes'), 2, /^ads-appdb: --to sslmode must be one of/);
    expectOneLine(await appdbCommand('copy', '--from', source), 2, /^ads-appdb: --from and --to are both required; usage: ads-appdb copy/);
    expectOneLine(await appdbCommand('move', '--from', source, '--to', target), 2, /^ads-appdb: expected one command, copy; usage/);
    expectOneLine(await appdbCommand('copy', '--from', source, '--to', target, '--force'), 2, /^ads-appdb: Unknown option '--force'/);
    // a URL mistaken for an option is not echoed
    const slip = await appdbCommand('copy', '--from', source, '--to', target, '--postgres://desk:secret-pw@db.example/desk');
    expectOneLine(slip, 2, /^ads-appdb: Unknown option \(not shown: no option name\); usage: /);
    expect(slip.stderr).not.to.include('secret-pw');
    expectOneLine(await appdbCommand('copy', '--from', '--to', target), 2, /^ads-appdb: Option '--from' argument is ambiguous; usage: /);
    expectOneLine(await appdbCommand('copy', '--from', source, '--to', source, '--replace'), 2, /^ads-appdb: --from and --to name the same database/);
    expect(fs.existsSync(path.join(folder.dir, 'never.sqlite'))).to.equal(false);
  });

  it('refuses an unreachable server, a wrong password and a missing database (exit 2, one line, the password masked)', async () => {
    const postgres = await sharedPostgres();
    const nobody = await freePort();
    expectOneLine(
      await appdbCommand('copy', '--from', source, '--to', `postgres://desk:secret-pw@127.0.0.1:${nobody}/desk`),
      2,
      new RegExp(`^ads-appdb: cannot open the target postgres://desk:\\*\\*\\*@127\\.0\\.0\\.1:${nobody}/desk: connect ECONNREFUSED`),
    );
    expectOneLine(
      await appdbCommand('copy', '--from', `postgres://postgres:wrong-pw@127.0.0.1:${postgres.port}/postgres`, '--to', `sqlite:${path.join(folder.dir, 'never.sqlite')}`),
      2,
      /^ads-appdb: cannot open the source postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres: password authentication failed for user "postgres"$/,
    );
    expectOneLine(await appdbCommand('copy', '--from', source, '--to', `postgres://postgres:ads-test@127.0.0.1:${postgres.port}/no_such_db`), 2, /cannot open the target .*: database "no_such_db" does not exist$/);
  });

  it('refuses a source that is not an app database, or of another schema version (exit 2, one line)', async () => {
    const target = `sqlite:${path.join(folder.dir, 'never.sqlite')}`;
    const other = path.join(folder.dir, 'kls.sqlite');
    const db = new Database(other);
    db.exec('CREATE TABLE gold_cases (case_id TEXT PRIMARY KEY)');
    db.close();
    expectOneLine(await appdbCommand('copy', '--from', `sqlite:${other}`, '--to', target), 2, /^ads-appdb: the source sqlite:.*kls\.sqlite is not an app database of this server \(it has no table migrations\)$/);
    fs.writeFileSync(path.join(folder.dir, 'text.sqlite'), 'not a database at all, only text that is long enough to be read as a header of a file '.repeat(10));
    expectOneLine(await appdbCommand('copy', '--from', `sqlite:${path.join(folder.dir, 'text.sqlite')}`, '--to', target), 2, /^ads-appdb: cannot read the source sqlite:.*text\.sqlite: file is not a database$/);
    expectOneLine(await appdbCommand('copy', '--from', `sqlite:${path.join(folder.dir, 'missing.sqlite')}`, '--to', target), 2, /^ads-appdb: cannot open the source sqlite:.*missing\.sqlite: no such file$/);
    expectOneLine(await appdbCommand('copy', '--from', source, '--to', `sqlite:${other}`), 2, /^ads-appdb: the target sqlite:.*kls\.sqlite holds tables but is not an app database \(gold_cases\)/);

    const newer = path.join(folder.dir, 'newer.sqlite');
    fs.copyFileSync(sourceFile, newer);
    const writer = new Database(newer);
    writer.prepare('INSERT INTO migrations (timestamp, name) VALUES (?, ?)').run(1999999999999, 'AddSomethingLater1999999999999');
    writer.close();
    expectOneLine(await appdbCommand('copy', '--from', `sqlite:${newer}`, '--to', target), 2, /has a newer schema than this command \(migration AddSomethingLater1999999999999 is unknown to it\)/);
    expectOneLine(await appdbCommand('copy', '--from', source, '--to', `sqlite:${newer}`), 2, /^ads-appdb: the target sqlite:.*newer\.sqlite has a newer schema than this command/);

    const older = path.join(folder.dir, 'older.sqlite');
    fs.copyFileSync(sourceFile, older);
    const rewriter = new Database(older);
    rewriter.exec("DELETE FROM migrations WHERE name LIKE 'AddRevisions%'");
    rewriter.close();
    expectOneLine(await appdbCommand('copy', '--from', `sqlite:${older}`, '--to', target), 2, new RegExp(`has an older schema \\(${MIGRATIONS.length - 1} of ${MIGRATIONS.length} migrations\\): start this version's server on it once`));
    expect(fs.existsSync(path.join(folder.dir, 'never.sqlite'))).to.equal(false);
  });
});
