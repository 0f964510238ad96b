import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { appdbCommand, fillThroughApi, readEverything } from '../helpers/appdb-copy.js';
import { ManualClock } from '../helpers/clock.js';
import { call } from '../helpers/http.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

describe('ads-appdb copy: SQLite to PostgreSQL and back, through the API', function () {
  this.timeout(120_000);
  const clock = new ManualClock();
  const folder = tempDir('ads-appdb-copy-');
  const servers: TestServer[] = [];
  let tenants: string[];
  let sqliteUrl: string;
  let answersBefore: Map<string, string>;

  const serverOn = async (appDbUrl: string): Promise<TestServer> => {
    const server = await startTestServer({ env: { APP_DB_URL: appDbUrl }, now: clock.now });
    servers.push(server);
    return server;
  };

  before(async () => {
    sqliteUrl = `sqlite:${path.join(folder.dir, 'desk', 'app.sqlite')}`;
    const desk = await serverOn(sqliteUrl);
    tenants = desk.deps.tenants.list().map((t) => t.compositeId);
    await fillThroughApi(desk.url, tenants, clock);
    answersBefore = await readEverything(desk.url, tenants);
  });
  after(async () => {
    for (const server of servers) await server.close();
    folder.remove();
  });

  it('copies every row into PostgreSQL: a server there answers every list and read byte for byte, ETags included', async () => {
    const postgresUrl = await (await sharedPostgres()).createDatabase('copy');
    // the desk's server still runs on the source while it is copied
    const copied = await appdbCommand('copy', '--from', sqliteUrl, '--to', postgresUrl);
    expect(copied.code, copied.stderr).to.equal(0);
    expect(copied.stdout).to.match(/cells +1,048 +([0-9a-f]{16}) +\1/);
    expect(copied.stdout).to.match(/every table's count and checksum agree/);
    expect(copied.stdout + copied.stderr).not.to.include('ads-test');

    const team = await serverOn(postgresUrl);
    const answersAfter = await readEverything(team.url, tenants);
    expect([...answersAfter.keys()]).to.deep.equal([...answersBefore.keys()]);
    for (const [request, answer] of answersBefore) expect(answersAfter.get(request), request).to.equal(answer);

    // the reverse: PostgreSQL into a new SQLite file gives the same answers again
    fs.mkdirSync(path.join(folder.dir, 'back'));
    const backUrl = `sqlite:${path.join(folder.dir, 'back', 'app.sqlite')}`;
    const back = await appdbCommand('copy', '--from', postgresUrl, '--to', backUrl);
    expect(back.code, back.stderr).to.equal(0);
    expect(back.stdout.split('\n').slice(2, 7)).to.deep.equal(copied.stdout.split('\n').slice(2, 7));
    const desk2 = await serverOn(backUrl);
    const again = await readEverything(desk2.url, tenants);
    for (const [request, answer] of answersBefore) expect(again.get(request), request).to.equal(answer);

    // a tag a UI held before the move is still current after it: a revalidation is 304 and a save with it 200
    for (const server of [team, desk2]) {
      const notebook = `/${tenants[0]}/api/notebook`;
      const read = await call(server.url, notebook);
      const held = read.headers.get('etag')!;
      expect(answersBefore.get(notebook)).to.include(`etag: ${held}`);
      expect((await call(server.url, notebook, { headers: { 'if-none-match': held } })).status).to.equal(304);
      const cellId = (JSON.parse(read.body.notebook.cells) as { id: string }[])[0]!.id;
      const saved = await call(server.url, `${notebook}/cells/${cellId}`, { method: 'PUT', headers: { 'if-match': held }, json: { updates: { text: { en: 'after the move' } } } });
      expect(saved.status, saved.text).to.equal(200);
      const views = (await call(server.url, `/api/views?tenant=${tenants[1]}&include_etags=true`)).body.views as { view_id: string; etag: string }[];
      const renamed = await call(server.url, '/api/views', { method: 'PUT', headers: { 'if-match': views[0]!.etag }, json: { tenant: tenants[1], view_id: views[0]!.view_id, name: 'Saved after the move' } });
      expect(renamed.status, renamed.text).to.equal(200);
    }
  });
});
