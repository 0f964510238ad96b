import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const RELEASED = 'idle: memory released';

// The server collects once it is idle after a busy spell (src/idle-collection.ts) and says so in its log; here it
// looks every 20 ms and collects whatever the heap grew by, so that the test waits for the line, not for time.
describe('the idle server releases memory', function () {
  this.timeout(60_000);
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ log, timing: { idleCollection: { checkMs: 20, minGrowthMb: 0 } } });
  });
  after(() => server.close());

  it('logs one collection after its requests are answered, with V8 heap and RSS before and after', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.url}/api/jumpbar?mode=tenants`);
      await res.arrayBuffer();
      expect(res.status).to.equal(200);
    }
    // a look that collects after this saw no request in flight and none started since the look before
    const answered = lines.length;
    const line = (await until(() => lines.slice(answered).find((l) => l['msg'] === RELEASED), { what: RELEASED })) as { ms: number; heapMb: { before: number; after: number }; rssMb: { before: number; after: number } };
    expect(line.heapMb.after).to.be.a('number').and.to.be.at.most(line.heapMb.before);
    expect(line.rssMb.after).to.be.a('number').and.to.be.above(0);
    expect(line.ms).to.be.a('number');
  });
});
