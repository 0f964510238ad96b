import { expect } from 'chai';
import Database from 'better-sqlite3';
import path from 'node:path';
import { APP_DATABASES } from '../helpers/app-databases.js';
import { addNotebookCell, cellsOf } from '../helpers/collaboration.js';
import { call } from '../helpers/http.js';
import { sharedData, spawnServer, type ServerProcess, type SharedData } from '../helpers/server-process.js';

// Real server processes over one app database (a SQLite file, or one PostgreSQL database): no lost update, and
// no acknowledged write lost when a process is killed.
for (const db of APP_DATABASES) {
  describe(`notebook writes from several server processes (one app database) [${db.name}]`, function () {
    this.timeout(120_000);
    let data: SharedData;
    let env: Record<string, string>;
    const running: ServerProcess[] = [];
    const start = async () => {
      const server = await spawnServer(env);
      running.push(server);
      return server;
    };
    beforeEach(async () => {
      data = sharedData('ads-notebook-processes-');
      env = { ...data.env, ...(await db.env()) };
    });
    afterEach(async () => {
      await Promise.all(running.splice(0).map((s) => s.kill()));
      data.remove();
    });

    it('keeps all 100 cells when 100 parallel additions are split across two processes', async () => {
      const [a, b] = [await start(), await start()];
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, seq) =>
          call((seq % 2 === 0 ? a : b).url, `/${seq % 3 === 0 ? 'kantonsspital' : 'ost.kantonsspital'}/api/notebook/cells`, {
            method: 'POST',
            json: { cell: { type: 'narrative', text: { en: `cell ${seq}` }, seq } },
          }),
        ),
      );
      expect(results.map((r) => r.status)).to.deep.equal(Array(100).fill(201));
      for (const server of [a, b]) {
        const cells = cellsOf((await call(server.url, '/kantonsspital/api/notebook')).body);
        expect(cells).to.have.length(100);
        expect(new Set(cells.map((c) => c.id)).size).to.equal(100);
        expect(cells.map((c) => c.seq).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i));
      }
    });

    it('keeps all 100 replies when 100 parallel replies to one discussion are split across two processes', async () => {
      const [a, b] = [await start(), await start()];
      const discussion = await addNotebookCell(a.url, 'kantonsspital', { type: 'discussion', title: 'Unbilled cases in October' });
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, seq) =>
          call((seq % 2 === 0 ? a : b).url, `/kantonsspital/api/notebook/cells/${discussion.id}/discussion`, {
            method: 'POST',
            json: { author: `writer ${seq % 2}`, text: { en: `reply ${seq}` } },
          }),
        ),
      );
      expect(results.map((r) => r.status)).to.deep.equal(Array(100).fill(201));
      const cells = cellsOf((await call(b.url, '/kantonsspital/api/notebook')).body);
      const replies = cells.find((c) => c.id === discussion.id)!.replies as Array<{ text: { en: string } }>;
      expect(replies).to.have.length(100);
      expect(new Set(replies.map((r) => r.text.en)).size).to.equal(100);
    });

    it('loses no acknowledged cell when the process is killed (SIGKILL) during a burst of writes', async () => {
      const first = await start();
      const acknowledged: number[] = [];
      let next = 0;
      let killed = false;
      const killedAfter = new Promise<void>((resolve) => {
        const writer = async () => {
          while (!killed) {
            const seq = next++;
            try {
              const res = await call(first.url, '/kantonsspital/api/notebook/cells', { method: 'POST', json: { cell: { type: 'action', text: `task ${seq}` , seq } } });
              if (res.status === 201) acknowledged.push(seq);
            } catch {
              return; // connection reset by the kill: not acknowledged
            }
            if (acknowledged.length >= 60 && !killed) {
              killed = true;
              void first.kill().then(resolve);
            }
          }
        };
        for (let i = 0; i < 16; i += 1) void writer();
      });
      await killedAfter;
      expect(first.child.signalCode).to.equal('SIGKILL');
      expect(next, 'requests were still being sent when the process died').to.be.greaterThan(acknowledged.length);

      if (db.name === 'SQLite') {
        const check = new Database(path.join(data.dir, 'app', 'app.sqlite'));
        try {
          expect(check.pragma('integrity_check', { simple: true })).to.equal('ok');
        } finally {
          check.close();
        }
      }
      const second = await start();
      const cells = cellsOf((await call(second.url, '/kantonsspital/api/notebook')).body);
      const stored = new Set(cells.map((c) => c.seq as number));
      const lost = acknowledged.filter((seq) => !stored.has(seq));
      expect(lost, 'acknowledged cells missing after the restart').to.deep.equal([]);
      expect(new Set(cells.map((c) => c.id)).size).to.equal(cells.length);
    });
  });
}
