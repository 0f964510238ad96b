import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { heldReaders } from '../helpers/held-readers.js';
import { RARE_MATERIAL, buildBigTenant } from '../helpers/big-tenant.js';
import { dataDirWith } from '../helpers/kls-builder.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

// Reads whose cost grows with a tenant's table run on reader threads (src/reader-threads/, READER_THREADS=on, the
// default where there is more than one core), so that they never hold the main thread: while the costliest of them
// is in a step on its reader, /health and another tenant's search are answered. The reader thread is held inside a
// step of the read (test/helpers/held-readers.ts, as a single long SQLite step holds it) until those answers are in, so the
// verdict does not depend on how long the read or the answers take; then the read goes on and its answer is checked.
// With the read on the main thread nothing is held on a reader and the other requests wait behind it.
// READER_THREADS=off, where the main thread reads in bounded steps, is checked by test/unit/reader-pool.test.ts.
// How long the other clients wait meanwhile (the goal: p99 at most 50 ms) is measured open loop by
// `npm run bench -- export` (docs/benchmarks.md).
const ROWS = 1_000_000;
const SEARCHES = ['fallpauschale', 'kosten', 'implant', 'notfall', 'budget', 'materialverbrauch', 'stay', 'drug'];
const EMPTY_EXPORT = 'id,code,name,category,price,note\r\n';

const searchPaths = SEARCHES.map((q) => `/api/jumpbar?mode=search&tenant=kantonsspital&q=${encodeURIComponent(q)}`);
const explainRare = `/api/explain?tenant=lab.big&entity_id=${RARE_MATERIAL}`;
const nothingSorted = '/lab.big/dimensions/big/export?q=no-such-text&sort=price';

describe('long reads of a tenant file while other requests come', function () {
  this.timeout(120_000);
  let server: TestServer;
  let data: ReturnType<typeof dataDirWith>;
  const readers = heldReaders();

  before(async () => {
    data = dataDirWith();
    buildBigTenant(data.klsFile('lab.big'), 'big', ROWS);
    server = await startTestServer({ dataDir: data.dir, env: { READER_THREADS: 'on' }, readers: readers.pool });
    // every tenant's search index is built (on the main thread, in steps) before the reads are held
    const kls = path.join(data.dir, 'kls');
    for (const pack of fs.readdirSync(kls)) {
      for (const slug of fs.readdirSync(path.join(kls, pack))) {
        expect((await fetch(`${server.url}/api/jumpbar?mode=search&tenant=${pack}.${slug}&q=kosten`)).status).to.equal(200);
      }
    }
  });
  after(async () => {
    await server.close();
    data.remove();
  });

  /**
   * Sends `costly` and holds its reader thread inside a step of it; requires /health and the other tenant's
   * searches to be answered while it is held and its answer has not come; then lets it go on and returns its answer.
   */
  async function answeredWhileHeld(costly: string): Promise<{ status: number; body: string }> {
    const pool = readers.pool;
    expect(server.deps.readers, 'the server reads on the reader threads').to.equal(pool);
    const hold = readers.hold();
    let answered = false;
    const answer = fetch(server.url + costly).then(async (res) => {
      const body = await res.text();
      answered = true;
      return { status: res.status, body };
    });
    try {
      await until(() => hold.holding, { what: 'a step of the costly read held on its reader thread' });
      for (const other of ['/health', ...searchPaths]) {
        const res = await fetch(server.url + other);
        expect(res.status, other).to.equal(200);
        await res.arrayBuffer();
      }
      expect(hold.holding, 'the reader thread still in the costly read').to.equal(true);
      expect(pool.jobCount, 'the costly read not over').to.equal(1);
      expect(answered, 'the costly read answered').to.equal(false);
    } finally {
      hold.release();
    }
    return answer;
  }

  it("answers /health and another tenant's search while an export of 1,000,000 rows that match nothing, sorted on an unindexed column, is on its reader", async () => {
    const { status, body } = await answeredWhileHeld(nothingSorted);
    expect(status).to.equal(200);
    expect(body).to.equal(EMPTY_EXPORT);
  });

  it("answers /health and another tenant's search while an explain without entity_type counts a 1,000,000-row Gold table on its reader", async () => {
    const { status, body } = await answeredWhileHeld(explainRare);
    expect(status).to.equal(200);
    const groups = (JSON.parse(body) as { groups: { table: string; count: number }[] }).groups;
    expect(groups.map((g) => [g.table, g.count])).to.deep.equal([['gold_big', 1]]);
  });
});
