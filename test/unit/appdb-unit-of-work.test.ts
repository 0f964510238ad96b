import { expect } from 'chai';
import path from 'node:path';
import { openAppDatabase, type AppDatabase } from '../../src/appdb/app-database.js';
import { NotebookRow } from '../../src/appdb/notebook.entity.js';
import { readUnit, writeUnit } from '../../src/appdb/unit-of-work.js';
import { tempDir } from '../helpers/server.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('app database units of work (src/appdb/unit-of-work.ts)', () => {
  let dir: ReturnType<typeof tempDir>;
  let appDb: AppDatabase;
  beforeEach(async () => {
    dir = tempDir('ads-uow-');
    appDb = await openAppDatabase(path.join(dir.dir, 'app.sqlite'));
  });
  afterEach(async () => {
    await appDb.close();
    dir.remove();
  });

  it('runs the migrations: the tables of views, notebooks, notes and cells exist', async () => {
    const tables = (await appDb.dataSource.query("SELECT name FROM sqlite_master WHERE type = 'table'")) as Array<{ name: string }>;
    expect(tables.map((t) => t.name)).to.include.members(['saved_views', 'notebooks', 'notes', 'cells']);
  });

  it('never interleaves two write units of one process, even when they await between read and write', async () => {
    await writeUnit(appDb.dataSource, (m) => m.insert(NotebookRow, { tenantId: 'ost.counter', createdAt: '0', updatedAt: '0' }));
    await Promise.all(
      Array.from({ length: 50 }, () =>
        writeUnit(appDb.dataSource, async (m) => {
          const row = await m.findOneByOrFail(NotebookRow, { tenantId: 'ost.counter' });
          await tick(); // other requests get the event loop here
          await m.update(NotebookRow, { tenantId: 'ost.counter' }, { updatedAt: String(Number(row.updatedAt) + 1) });
        }),
      ),
    );
    const row = await readUnit(appDb.dataSource, (m) => m.findOneByOrFail(NotebookRow, { tenantId: 'ost.counter' }));
    expect(row.updatedAt).to.equal('50');
  });

  it('rolls a failed write unit back, and a read started meanwhile never sees its uncommitted row', async () => {
    const failing = writeUnit(appDb.dataSource, async (m) => {
      await m.insert(NotebookRow, { tenantId: 'ost.ghost', createdAt: '1', updatedAt: '1' });
      await tick();
      throw new Error('handler failed');
    });
    const seen = readUnit(appDb.dataSource, (m) => m.findOneBy(NotebookRow, { tenantId: 'ost.ghost' }));
    const error = await failing.then(() => null, (err: Error) => err);
    expect(error?.message).to.equal('handler failed');
    expect(await seen).to.equal(null);
    expect(await readUnit(appDb.dataSource, (m) => m.countBy(NotebookRow, { tenantId: 'ost.ghost' }))).to.equal(0);
  });
});
