import { expect } from 'chai';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { appdbCommand, bulkAppDatabase, postgresContent, spawnAppdbCommand } from '../helpers/appdb-copy.js';
import { call } from '../helpers/http.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { sharedData, spawnServer, type ServerProcess, type SharedData } from '../helpers/server-process.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** Rows of the bulk source: enough that a copy into PostgreSQL is still running when the test reacts to its first progress line. */
const BULK_CELLS = 30_000;

describe('ads-appdb copy: interrupted, and from a database in use', function () {
  this.timeout(90_000);
  const folder = tempDir('ads-appdb-processes-');
  const bulk = `sqlite:${path.join(folder.dir, 'bulk.sqlite')}`;
  const small = `sqlite:${path.join(folder.dir, 'small.sqlite')}`;
  before(async () => {
    await bulkAppDatabase(path.join(folder.dir, 'bulk.sqlite'), BULK_CELLS);
    await bulkAppDatabase(path.join(folder.dir, 'small.sqlite'), 700);
  });
  after(() => folder.remove());

  /** A PostgreSQL app database holding the small source's rows, and what it holds. */
  const targetHoldingData = async (): Promise<{ url: string; held: string }> => {
    const url = await (await sharedPostgres()).createDatabase('interrupted');
    const copied = await appdbCommand('copy', '--from', small, '--to', url);
    expect(copied.code, copied.stderr).to.equal(0);
    return { url, held: await postgresContent(url) };
  };
  const midCells = new RegExp(`^copying cells: [\\d,]+ of ${BULK_CELLS.toLocaleString('en-US')} rows \\(\\d+%\\)$`);

  it('leaves the target as it was when the process is killed (SIGKILL) in the middle of the copy', async () => {
    const target = await targetHoldingData();
    const copy = spawnAppdbCommand(['copy', '--from', bulk, '--to', target.url, '--replace']);
    await copy.lineMatching(midCells);
    copy.child.kill('SIGKILL');
    const ended = await copy.done;
    expect(ended.signal).to.equal('SIGKILL');
    expect(ended.stdout).not.to.include('copied');
    expect(ended.stderr).to.include('--replace: deleting what the target holds (notes 2, cells 700)');
    expect(await postgresContent(target.url)).to.equal(target.held);
  });

  it('rolls back on SIGINT in the middle of the copy: exit 130, one line, the target as it was', async () => {
    const target = await targetHoldingData();
    const copy = spawnAppdbCommand(['copy', '--from', bulk, '--to', target.url, '--replace']);
    await copy.lineMatching(midCells);
    copy.child.kill('SIGINT');
    const ended = await copy.done;
    expect(ended.code, ended.stderr).to.equal(130);
    expect(ended.stderr.trim().split('\n').at(-1)).to.equal('ads-appdb: interrupted: the copy was rolled back, the target is as it was');
    expect(await postgresContent(target.url)).to.equal(target.held);
    // the lock is free again: the next copy runs
    const next = await appdbCommand('copy', '--from', small, '--to', target.url, '--replace');
    expect(next.code, next.stderr).to.equal(0);
  });

  // a copy between two SQLite files never waits for I/O: the signal's handler must still run before it commits
  for (const { signals, code, line } of [
    { signals: ['SIGINT'], code: 130, line: 'ads-appdb: interrupted: the copy was rolled back, the target is as it was' },
    { signals: ['SIGTERM'], code: 143, line: 'ads-appdb: terminated (SIGTERM): the copy was rolled back, the target is as it was' },
    { signals: ['SIGINT', 'SIGINT'], code: 130, line: null },
  ] as const) {
    it(`leaves no file when a copy into a new SQLite file is stopped by ${signals.join(' and ')} (exit ${code})`, async () => {
      const target = path.join(folder.dir, `new-${signals.join('-')}.sqlite`);
      const copy = spawnAppdbCommand(['copy', '--from', bulk, '--to', `sqlite:${target}`]);
      await copy.lineMatching(midCells);
      for (const signal of signals) copy.child.kill(signal);
      const ended = await copy.done;
      expect(ended.code, ended.stderr).to.equal(code);
      expect(ended.stdout).not.to.include('copied');
      if (line !== null) expect(ended.stderr.trim().split('\n').at(-1)).to.equal(line);
      expect(fs.readdirSync(folder.dir).filter((name) => name.startsWith(path.basename(target)))).to.deep.equal([]);
    });
  }

  describe('from the SQLite file of a server that keeps writing', () => {
    let data: SharedData;
    let server: ServerProcess;
    before(async () => {
      data = sharedData('ads-appdb-live-');
      await bulkAppDatabase(path.join(data.dir, 'app', 'app.sqlite'), BULK_CELLS);
      server = await spawnServer(data.env);
    });
    after(async () => {
      await server?.stop();
      data?.remove();
    });

    it('copies one consistent snapshot, verified by its own checksums, while the server writes notes and their cells', async () => {
      const target = await (await sharedPostgres()).createDatabase('live');
      let writing = true;
      const statuses: number[] = [];
      const writer = (async () => {
        for (let n = 0; writing; n += 1) {
          const note = await call(server.url, '/kantonsspital/api/notes', { method: 'POST', json: { title: `Writer ${n}`, tags: [] } });
          statuses.push(note.status);
          for (let c = 0; c < 3 && note.status === 200; c += 1) {
            statuses.push((await call(server.url, `/kantonsspital/api/notes/${note.body.note.note_id}`, { method: 'POST', json: { cell: { type: 'action', text: `task ${c}` } } })).status);
          }
        }
      })();
      await until(() => statuses.length >= 20, { what: 'the first writes' });
      const copied = await appdbCommand('copy', '--from', `sqlite:${path.join(data.dir, 'app', 'app.sqlite')}`, '--to', target);
      writing = false;
      await writer;
      expect(copied.code, copied.stderr).to.equal(0);
      expect(copied.stdout).to.include("every table's count and checksum agree");
      expect(statuses.every((s) => s === 200)).to.equal(true);

      // every note in the copy has exactly the cells its revision counts (each cell added raised it by one), and
      // no cell is without its note: the tables were read in one snapshot, not one after the other
      const client = new pg.Client({ connectionString: target });
      await client.connect();
      const notes = (await client.query(`SELECT n.revision, (SELECT COUNT(*) FROM cells c WHERE c.owner_kind = 'note' AND c.owner_id = n.note_id)::int AS cells FROM notes n WHERE n.title LIKE 'Writer %'`)).rows;
      const orphans = (await client.query(`SELECT COUNT(*)::int AS n FROM cells c WHERE c.owner_kind = 'note' AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.note_id = c.owner_id)`)).rows[0].n;
      await client.end();
      expect(notes.length).to.be.greaterThan(0);
      for (const note of notes) expect(note.revision).to.equal(note.cells + 1);
      expect(orphans).to.equal(0);
      // and the server went on writing after the snapshot: the source holds more than the copy
      const db = new Database(path.join(data.dir, 'app', 'app.sqlite'), { readonly: true });
      const sourceNotes = (db.prepare(`SELECT COUNT(*) AS n FROM notes WHERE title LIKE 'Writer %'`).get() as { n: number }).n;
      db.close();
      expect(sourceNotes).to.be.greaterThan(notes.length);
    });
  });
});
