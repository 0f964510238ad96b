import { expect } from 'chai';
import { APP_DATABASES } from '../helpers/app-databases.js';
import { addNotebookCell, cellsOf } from '../helpers/collaboration.js';
import { call } from '../helpers/http.js';
import { sharedData, spawnServer, type ServerProcess, type SharedData } from '../helpers/server-process.js';

// Optimistic locking across real server processes over one app database (a SQLite file, or one PostgreSQL
// database): the comparison of If-Match and the write are one step, so of writes that carry the same tag exactly
// one is made, whichever process it reaches.
for (const db of APP_DATABASES) {
  describe(`If-Match from several server processes (one app database) [${db.name}]`, function () {
    this.timeout(120_000);
    let data: SharedData;
    const running: ServerProcess[] = [];
    beforeEach(() => {
      data = sharedData('ads-if-match-processes-');
    });
    afterEach(async () => {
      await Promise.all(running.splice(0).map((s) => s.kill()));
      data.remove();
    });
    const startTwo = async (): Promise<[ServerProcess, ServerProcess]> => {
      const env = { ...data.env, ...(await db.env()) };
      const pair = (await Promise.all([spawnServer(env), spawnServer(env)])) as [ServerProcess, ServerProcess];
      running.push(...pair);
      return pair;
    };

    it('makes exactly one of 12 concurrent notebook writes with the same tag (one 200, eleven 412)', async () => {
      const [a, b] = await startTwo();
      const cell = await addNotebookCell(a.url, 'kantonsspital', { type: 'narrative', text: { en: 'draft' } });
      const etag = (await call(b.url, '/kantonsspital/api/notebook')).headers.get('etag')!;
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, seq) =>
          call((seq % 2 === 0 ? a : b).url, `/kantonsspital/api/notebook/cells/${cell.id}`, {
            method: 'PUT',
            headers: { 'if-match': etag },
            json: { updates: { text: { en: `version ${seq}` } } },
          }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).to.deep.equal([200, ...Array(11).fill(412)]);
      const winner = results.findIndex((r) => r.status === 200);
      const final = await call(a.url, '/kantonsspital/api/notebook');
      expect(cellsOf(final.body)[0]!.text).to.deep.equal({ en: `version ${winner}` });
      expect(final.headers.get('etag')).to.equal(results[winner]!.headers.get('etag'));
      for (const loser of results.filter((r) => r.status === 412)) expect(loser.headers.get('etag')).to.be.oneOf([etag, final.headers.get('etag')]);
    });

    it('makes exactly one of 12 concurrent note and view writes with the same tag', async () => {
      const [a, b] = await startTwo();
      const note = (await call(a.url, '/kantonsspital/api/notes', { method: 'POST', json: { title: 'Close review', tags: [] } })).body.note;
      const noteTag = (await call(b.url, `/kantonsspital/api/notes/${note.note_id}`)).headers.get('etag')!;
      const posted = await call(a.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'v', params: {} } });
      const view = { ...posted.body.view, etag: posted.headers.get('etag')! };
      const [noteWrites, viewWrites] = await Promise.all([
        Promise.all(
          Array.from({ length: 12 }, (_, seq) =>
            call((seq % 2 === 0 ? a : b).url, `/kantonsspital/api/notes/${note.note_id}`, { method: 'PUT', headers: { 'if-match': noteTag }, json: { title: `title ${seq}` } }),
          ),
        ),
        Promise.all(
          Array.from({ length: 12 }, (_, seq) =>
            call((seq % 2 === 0 ? b : a).url, '/api/views', { method: 'PUT', headers: { 'if-match': view.etag }, json: { tenant: 'kantonsspital', view_id: view.view_id, name: `name ${seq}` } }),
          ),
        ),
      ]);
      for (const results of [noteWrites, viewWrites]) expect(results.map((r) => r.status).sort()).to.deep.equal([200, ...Array(11).fill(412)]);
      const noteWinner = noteWrites.findIndex((r) => r.status === 200);
      expect((await call(b.url, `/kantonsspital/api/notes/${note.note_id}`)).body.note.title).to.equal(`title ${noteWinner}`);
      const viewWinner = viewWrites.findIndex((r) => r.status === 200);
      const [saved] = (await call(a.url, '/api/views?tenant=kantonsspital&include_etags=true')).body.views;
      expect(saved.name).to.equal(`name ${viewWinner}`);
      expect(saved.etag).to.equal(viewWrites[viewWinner]!.headers.get('etag'));
    });
  });
}
