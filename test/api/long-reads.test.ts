import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { openLoop, type OpenLoopResult } from '../../bench/open-loop.js';
import { RARE_MATERIAL, buildBigTenant } from '../helpers/big-tenant.js';
import { dataDirWith } from '../helpers/kls-builder.js';
import { spawnServer, type ServerProcess } from '../helpers/server-process.js';

// Reads whose cost grows with a tenant's table run on reader threads (src/reader-threads/, READER_THREADS=on, the
// default where there is more than one core): while a hostile client repeats them over a 1,000,000-row table,
// other clients' requests keep their latency (READER_THREADS=off, where the main thread reads in bounded steps, is
// measured side by side by the bench; test/unit/reader-pool.test.ts checks that it steps).
// The server runs in a process of its own, as in production (this process's heap, grown by the tests before it,
// would pause it). Measured open loop (each latency from the moment its request was due). The bound is generous,
// for a two-core machine busy with other test runs: with the reads on the main thread the requests queue behind
// them for seconds (p50 17 s), while the goal, p99 at most 50 ms, is measured by `npm run bench -- export`
// (docs/benchmarks.md).
const ROWS = 1_000_000;
const BOUND_MS = 1000;
const RATE = 100;
const SECONDS = 4;
const SEARCHES = ['fallpauschale', 'kosten', 'implant', 'notfall', 'budget', 'materialverbrauch', 'stay', 'drug'];
const EMPTY_EXPORT = 'id,code,name,category,price,note\r\n';

const searchPaths = SEARCHES.map((q) => `/api/jumpbar?mode=search&tenant=kantonsspital&q=${encodeURIComponent(q)}`);
const explainRare = `/api/explain?tenant=lab.big&entity_id=${RARE_MATERIAL}`;
const nothingSorted = '/lab.big/dimensions/big/export?q=no-such-text&sort=price';

describe('long reads of a tenant file while other requests come', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let data: ReturnType<typeof dataDirWith>;

  before(async () => {
    data = dataDirWith();
    buildBigTenant(data.klsFile('lab.big'), 'big', ROWS);
    const kls = path.join(data.dir, 'kls');
    server = await spawnServer({ DATA_DIR: data.dir, KLS_DIR: kls, GIT_WORKSPACES_DIR: '', READER_THREADS: 'on' });
    // every tenant's search index is built (on the main thread, in steps) before anything is measured
    for (const pack of fs.readdirSync(kls)) {
      for (const slug of fs.readdirSync(path.join(kls, pack))) {
        expect((await fetch(`${server.url}/api/jumpbar?mode=search&tenant=${pack}.${slug}&q=kosten`)).status).to.equal(200);
      }
    }
    // the searches the other clients send are answered once (then from the result cache); the reader thread is started
    for (const search of searchPaths) expect((await fetch(server.url + search)).status).to.equal(200);
    expect(await (await fetch(server.url + nothingSorted)).text()).to.equal(EMPTY_EXPORT);
    expect((await fetch(server.url + explainRare)).status).to.equal(200);
  });
  after(async () => {
    await server.stop();
    data.remove();
  });

  /** Sends `target` again and again, one at a time, while `during` runs; checks each answer; resolves with the count. */
  async function repeatWhile(target: string, check: (res: Response, body: string) => void, during: Promise<unknown>): Promise<number> {
    let over = false;
    void during.finally(() => (over = true));
    let count = 0;
    while (!over) {
      const res = await fetch(server.url + target);
      check(res, await res.text());
      count += 1;
    }
    return count;
  }

  /** /health and the other tenant's searches, each open loop at RATE for SECONDS. */
  const otherClients = (): Promise<[OpenLoopResult, OpenLoopResult]> =>
    Promise.all([
      openLoop({ url: server.url, paths: ['/health'], rate: RATE, seconds: SECONDS, warmupSeconds: 0.5 }),
      openLoop({ url: server.url, paths: searchPaths, rate: RATE, seconds: SECONDS, warmupSeconds: 0.5 }),
    ]);

  function expectUnhurried([health, search]: [OpenLoopResult, OpenLoopResult]): void {
    for (const [name, result] of [['GET /health', health], ['search on another tenant', search]] as const) {
      // figures that came back from the generator as null (NaN: nothing answered) are printed as such
      const seen = `${name}: ${result.ok} of ${result.requests} answered 2xx, p50 ${String(result.latency.p50)} ms, p99 ${String(result.latency.p99)} ms`;
      expect(result.ok, seen).to.equal(result.requests);
      expect(result.latency.p99, seen).to.be.below(BOUND_MS);
    }
  }

  it("keeps /health and another tenant's search under 1 s p99 while exports of 1,000,000 rows that match nothing, sorted on an unindexed column, run back to back", async () => {
    const measured = otherClients();
    const exports = await repeatWhile(
      nothingSorted,
      (res, body) => {
        expect(res.status).to.equal(200);
        expect(body).to.equal(EMPTY_EXPORT);
      },
      measured,
    );
    expectUnhurried(await measured);
    expect(exports, 'exports run during the measure').to.be.at.least(3);
  });

  it("keeps /health and another tenant's search under 1 s p99 while explains without entity_type scan a 1,000,000-row Gold table back to back", async () => {
    const measured = otherClients();
    const explains = await repeatWhile(
      explainRare,
      (res, body) => {
        expect(res.status).to.equal(200);
        const groups = (JSON.parse(body) as { groups: { table: string; count: number }[] }).groups;
        expect(groups.map((g) => [g.table, g.count])).to.deep.equal([['gold_big', 1]]);
      },
      measured,
    );
    expectUnhurried(await measured);
    expect(explains, 'explains run during the measure').to.be.at.least(3);
  });
});
