import { expect } from 'chai';
import { call } from '../helpers/http.js';
import { klsVariant, startObjectStore, type TestObjectStore } from '../helpers/s3rver.js';
import type { TestServer } from '../helpers/server.js';
import { startStoreModeServer, waitForSync, waitUntil } from '../helpers/store-mode.js';

const TENANT = 'ost.kantonsspital';
const READS = 2000;
const WORKERS = 20;

describe('KLS store mode: a swap under load', () => {
  let store: TestObjectStore;
  let server: TestServer;
  before(async () => {
    store = await startObjectStore();
    await store.uploadDemo();
    server = await startStoreModeServer(store);
    await waitForSync(server);
  });
  after(async () => {
    await server.close();
    await store.close();
  });

  it('serves 2,000 reads of a tenant spread over a refresh that swaps its file: 0 failures, generations monotonic', async function () {
    this.timeout(120_000);
    const oldHandle = server.deps.tenants.get(TENANT)!.handle!;
    let started = 0;
    let finished = 0;
    const failures: string[] = [];
    const swapSeenAt: number[] = [];
    const readWorker = async (): Promise<number[]> => {
      const generations: number[] = [];
      while (started < READS) {
        started += 1;
        const read = await call(server.url, `/api/jumpbar?mode=summary&tenant=${TENANT}`);
        finished += 1;
        if (read.status !== 200 || typeof read.body?.summary?.total !== 'number') failures.push(`${read.status} ${read.text.slice(0, 200)}`);
        if (finished % 5 === 0) {
          const poll = await call(server.url, `/api/db-status/${TENANT}`);
          if (poll.status !== 200) failures.push(`db-status ${poll.status}`);
          else generations.push(poll.body.generation);
          if (poll.body?.generation === 2) swapSeenAt.push(finished);
        }
      }
      return generations;
    };
    const refresher = async (): Promise<void> => {
      await waitUntil(() => finished >= READS / 5, 30_000, 'the first reads');
      await store.put('ost/kantonsspital/kls.sqlite', klsVariant('ost', 'kantonsspital', 'Kantonsspital Ost (swapped under load)'));
      store.slowDownloads(5);
      const res = await call(server.url, `/api/refresh?scope=tenant&tenant=${TENANT}`);
      expect(res.body.status).to.equal('started');
    };
    const [perWorker] = await Promise.all([Promise.all(Array.from({ length: WORKERS }, readWorker)), refresher()]);
    store.slowDownloads(null);

    expect(failures).to.deep.equal([]);
    expect(finished).to.be.at.least(READS);
    for (const generations of perWorker) {
      for (let i = 1; i < generations.length; i += 1) expect(generations[i]).to.be.at.least(generations[i - 1]!);
    }
    const seen = new Set(perWorker.flat());
    expect([...seen].sort()).to.deep.equal([1, 2]);
    // the swap happened while reads were still running, not after them
    expect(Math.min(...swapSeenAt)).to.be.below(READS);
    expect(server.deps.tenants.get(TENANT)!.generation).to.equal(2);
    // the old connection closed once its last read was done
    expect(oldHandle.isClosed).to.equal(true);
  });
});
