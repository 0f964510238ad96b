import { expect } from 'chai';
import { cellsOf } from '../helpers/collaboration.js';
import { call } from '../helpers/http.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { klsVariant, startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import { spawnServer, type ServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

type Answer = Awaited<ReturnType<typeof call>>;

/** Runs `tasks` with at most `width` in flight; their results in order. */
async function inParallel<T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]!();
      }
    }),
  );
  return results;
}

const appendCell = (base: string, seq: number): Promise<Answer> =>
  call(base, '/kantonsspital/api/notebook/cells', { method: 'POST', json: { cell: { type: 'action', text: `task ${seq}`, seq } } });

/**
 * Three server processes behind no load balancer at all (requests spread over them by the test), one PostgreSQL
 * app database and one s3rver object store: the instances answer as one server does.
 */
describe('several instances on one PostgreSQL and one object store', function () {
  this.timeout(180_000);
  let postgres: TestPostgres;
  let store: TestObjectStore;
  let appDbUrl: string;
  const caches: ReturnType<typeof tempDir>[] = [];
  const instances: ServerProcess[] = [];

  /** A new instance with its own cache folder (KLS files, search sidecars), sharing database and store. */
  async function startInstance(): Promise<ServerProcess> {
    const cache = tempDir('ads-instance-');
    caches.push(cache);
    const server = await spawnServer({ ...store.env({ S3_PREFIX: 'prod' }), DATA_DIR: cache.dir, APP_DB_URL: appDbUrl, GIT_WORKSPACES_DIR: '' });
    await until(
      async () => {
        const status = await call(server.url, '/api/store-status');
        return status.body.initialized === true && status.body.ready === true;
      },
      { deadline: 30_000, every: 50, what: 'the instance to finish its store sync' },
    );
    return server;
  }

  before(async () => {
    [postgres, store] = await Promise.all([startPostgres(), startObjectStore()]);
    await store.uploadDemo('prod/');
    appDbUrl = await postgres.createDatabase('instances');
    instances.push(...(await Promise.all([startInstance(), startInstance(), startInstance()])));
  });
  after(async () => {
    await Promise.all(instances.map((s) => s.kill()));
    await Promise.all([postgres.close(), store.close()]);
    for (const cache of caches) cache.remove();
  });

  it('keeps all of 300 writes spread over the three (notebook cells, notes and their cells, views), read back through each', async () => {
    const at = (i: number) => instances[i % 3]!.url;
    const notes = await inParallel(
      Array.from({ length: 20 }, (_, i) => () => call(at(i), '/kantonsspital/api/notes', { method: 'POST', json: { title: `note ${i}`, tags: ['scenario'] } })),
      10,
    );
    const writes: (() => Promise<Answer>)[] = [
      ...Array.from({ length: 100 }, (_, i) => () => appendCell(at(i), i)),
      ...Array.from({ length: 80 }, (_, i) => () =>
        call(at(i + 1), `/kantonsspital/api/notes/${notes[i % 20]!.body.note.note_id}`, { method: 'POST', json: { cell: { type: 'action', text: `note task ${i}` } } }),
      ),
      ...Array.from({ length: 100 }, (_, i) => () =>
        call(at(i + 2), '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: `view ${i}`, params: { i } } }),
      ),
    ];
    const answers = await inParallel(writes, 30);
    expect([...notes, ...answers].map((a) => a.status).filter((s) => s !== 200 && s !== 201)).to.deep.equal([]);

    for (const instance of instances) {
      const cells = cellsOf((await call(instance.url, '/kantonsspital/api/notebook')).body);
      expect(cells.map((c) => c.seq).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i));
      const listed = (await call(instance.url, '/kantonsspital/api/notes')).body.notes as { tags: string[]; cell_count: number }[];
      expect(listed.filter((n) => n.tags.includes('scenario')).map((n) => n.cell_count)).to.deep.equal(Array(20).fill(4));
      expect((await call(instance.url, '/api/views?tenant=kantonsspital')).body.views).to.have.length(100);
    }
  });

  it('keeps every acknowledged write when one instance is killed during a burst, and the other two never answer 5xx', async () => {
    const victim = instances[2]!;
    const acknowledged: number[] = [];
    const fromSurvivors: number[] = [];
    let next = 1000;
    let killed = false;
    const writer = async (slot: number) => {
      // 300 more cells: with the 100 above and the outage test's few, the notebook stays under its 500-cell cap
      while (acknowledged.length < 300) {
        const seq = next++;
        const instance = instances[slot % 3]!;
        let res: Answer;
        try {
          res = await appendCell(instance.url, seq);
        } catch {
          if (instance !== victim) throw new Error('a surviving instance dropped a connection');
          slot += 1; // the victim's connections break: go on with the next instance
          continue;
        }
        if (instance !== victim) fromSurvivors.push(res.status);
        if (res.status === 201) acknowledged.push(seq);
        if (!killed && acknowledged.length >= 100) {
          killed = true;
          void victim.kill();
        }
        slot += 1;
      }
    };
    await Promise.all(Array.from({ length: 12 }, (_, i) => writer(i)));
    expect(victim.child.signalCode).to.equal('SIGKILL');
    expect(fromSurvivors.filter((s) => s >= 500)).to.deep.equal([]);
    const stored = new Set(cellsOf((await call(instances[0]!.url, '/kantonsspital/api/notebook')).body).map((c) => c.seq as number));
    expect(acknowledged.filter((seq) => !stored.has(seq))).to.deep.equal([]);
    // a new third instance serves the same data
    instances[2] = await startInstance();
    const third = new Set(cellsOf((await call(instances[2].url, '/kantonsspital/api/notebook')).body).map((c) => c.seq as number));
    expect([...stored].filter((seq) => !third.has(seq))).to.deep.equal([]);
  });

  it('serves 2,000 reads without one failure while an instance refreshes a changed tenant file', async () => {
    const variant = klsVariant('ost', 'kantonsspital', 'Kantonsspital Ost (refreshed)');
    await store.put('prod/ost/kantonsspital/kls.sqlite', variant);
    const [refreshing, ...others] = instances;
    const paths = ['/api/jumpbar?mode=summary&tenant=kantonsspital', '/api/db-status/ost.kantonsspital', '/api/logo/kantonsspital', '/kantonsspital/taxonomies/cardinality/member?id=KST-4100'];
    const reads = inParallel(
      Array.from({ length: 2000 }, (_, i) => () => call(others[i % 2]!.url, paths[i % paths.length]!)),
      20,
    );
    const refreshed = await call(refreshing!.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'ost.kantonsspital', wait: true } });
    expect(refreshed.status).to.equal(200);
    expect(refreshed.body).to.include({ status: 'completed' });
    const answers = await reads;
    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.text.slice(0, 80)}`)).to.deep.equal([]);
    const names = (await call(refreshing!.url, '/api/jumpbar?mode=tenants')).body.tenants.find((t: { id: string }) => t.id === 'ost.kantonsspital').name;
    expect(names).to.equal('Kantonsspital Ost (refreshed)');
    // every instance reports the object's Last-Modified as the file's mtime once it has the same object
    for (const other of others) await call(other.url, '/api/refresh', { method: 'POST', json: { scope: 'tenant', tenant: 'ost.kantonsspital', wait: true } });
    const mtimes = await Promise.all(instances.map(async (i) => (await call(i.url, '/api/db-status/ost.kantonsspital')).body.mtime as string));
    expect(new Set(mtimes).size, mtimes.join(', ')).to.equal(1);
  });

  it('answers writes 503 while PostgreSQL is stopped, says so in /health, and writes again once it is back', async () => {
    const [a, b] = instances;
    expect((await appendCell(a!.url, 5000)).status).to.equal(201);
    await postgres.stop();
    try {
      const refused = await appendCell(b!.url, 5001);
      expect(refused.status).to.equal(503);
      expect(refused.headers.get('content-type')).to.equal('application/problem+json');
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
      const health = await call(a!.url, '/health');
      expect(health.status).to.equal(503);
      expect(health.body.error).to.equal('app database unreachable');
      // tenant reads do not need the app database
      expect((await call(b!.url, '/api/jumpbar?mode=summary&tenant=kantonsspital')).status).to.equal(200);
    } finally {
      await postgres.start();
    }
    const written = await until(
      async () => {
        const answer = await appendCell(b!.url, 5002);
        return answer.status === 201 && answer;
      },
      { every: 100, what: 'a write once PostgreSQL is back' },
    );
    expect(written.status).to.equal(201);
    expect((await call(a!.url, '/health')).status).to.equal(200);
    const seqs = cellsOf((await call(a!.url, '/kantonsspital/api/notebook')).body).map((c) => c.seq);
    expect(seqs).to.include.members([5000, 5002]);
    expect(seqs).not.to.include(5001);
  });
});
