import { expect } from 'chai';
import http from 'node:http';
import path from 'node:path';
import { generateDemo } from '../../src/demo/generate.js';
import { DEMO_FINDING, startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.js';
import { heldExport } from '../helpers/http.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { spawnServer, type ServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const KEY = 'sk-ant-instances';
const LEASE_MS = 4000;
const finding = DEMO_FINDING;

/** A narrative sent from `localAddress` (without sign-in the limits count per client address): its status. */
function narrateFrom(localAddress: string, base: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify({ tenant: 'kantonsspital', finding });
    const req = http.request(`${base}/api/explain-narrative`, { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The export each held download asks for. */
const EXPORT = '/kantonsspital/dimensions/materials/export';

/** Polls every 100 ms until `check` is true; fails after `ms`. */
async function eventually(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  await until(check, { deadline: ms, every: 100, what });
}

/**
 * Three server processes on one PostgreSQL app database count one budget per caller: the per-minute narratives,
 * the exports at once (leases a killed instance cannot keep), and each its own while the database is away.
 */
describe('limits on costly work shared by several instances on one PostgreSQL', function () {
  this.timeout(180_000);
  let postgres: TestPostgres;
  let anthropic: FakeAnthropic;
  const data = tempDir('ads-limits-instances-');
  const instances: ServerProcess[] = [];

  before(async () => {
    [postgres, anthropic] = await Promise.all([startPostgres(), startFakeAnthropic(KEY)]);
    generateDemo({ out: data.dir, tenants: 3, rows: 100_000 });
    const env = {
      DATA_DIR: data.dir,
      KLS_DIR: path.join(data.dir, 'kls'),
      APP_DB_URL: await postgres.createDatabase('limits'),
      GIT_WORKSPACES_DIR: '',
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
      NARRATIVE_PER_MINUTE: '3',
      EXPORTS_PER_CALLER: '1',
      EXPORT_LEASE_MS: String(LEASE_MS),
    };
    instances.push(...(await Promise.all([spawnServer(env), spawnServer(env), spawnServer(env)])));
  });
  after(async () => {
    await Promise.all(instances.map((s) => s.kill()));
    await Promise.all([postgres.close(), anthropic.close()]);
    data.remove();
  });

  it('gives a caller exactly NARRATIVE_PER_MINUTE=3 narratives across the three instances, then 429 on every one', async () => {
    const calls = anthropic.requests.length;
    const statuses: number[] = [];
    for (const instance of instances) statuses.push(await narrateFrom('127.0.0.2', instance.url));
    for (const instance of instances) statuses.push(await narrateFrom('127.0.0.2', instance.url));
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429, 429]);
    expect(anthropic.requests.length - calls).to.equal(3);
    // another caller has a budget of its own
    expect(await narrateFrom('127.0.0.3', instances[1]!.url)).to.equal(200);
  });

  it('runs one export at once per caller with EXPORTS_PER_CALLER=1: two started together on two instances give one 200 and one 429', async () => {
    const both = await Promise.all([heldExport(`${instances[0]!.url}${EXPORT}`, { localAddress: '127.0.0.4' }), heldExport(`${instances[1]!.url}${EXPORT}`, { localAddress: '127.0.0.4' })]);
    try {
      expect(both.map((e) => e.status).sort()).to.deep.equal([200, 429]);
      const running = both.find((e) => e.status === 200)!;
      running.close();
      // the slot comes back once the instance has seen the client go
      await eventually('the released slot', 10_000, async () => {
        const next = await heldExport(`${instances[2]!.url}${EXPORT}`, { localAddress: '127.0.0.4' });
        next.close();
        return next.status === 200;
      });
    } finally {
      for (const e of both) e.close();
    }
  });

  // that the slot stays held until the lease expires, and not a millisecond longer, test/unit/export-leases.test.ts
  // shows on a clock it sets; here, that a killed process's slot does come back (the deadline only guards a hang)
  it('frees the slot of an instance killed with SIGKILL mid-export once its lease has expired', async () => {
    const victim = instances[2]!;
    const held = await heldExport(`${victim.url}${EXPORT}`, { localAddress: '127.0.0.5' });
    expect(held.status).to.equal(200);
    await victim.kill();
    await eventually('the expired lease', LEASE_MS + 15_000, async () => {
      const admitted = await heldExport(`${instances[0]!.url}${EXPORT}`, { localAddress: '127.0.0.5' });
      admitted.close();
      return admitted.status === 200;
    });
    held.close();
  });

  it('counts on each instance alone while PostgreSQL is stopped, and across them again once it is back', async () => {
    const [a, b] = instances;
    await postgres.stop();
    try {
      const onA = [];
      for (let i = 0; i < 4; i++) onA.push(await narrateFrom('127.0.0.6', a!.url));
      expect(onA).to.deep.equal([200, 200, 200, 429]);
      expect(await narrateFrom('127.0.0.6', b!.url)).to.equal(200);
      const exports = [await heldExport(`${a!.url}${EXPORT}`, { localAddress: '127.0.0.6' }), await heldExport(`${b!.url}${EXPORT}`, { localAddress: '127.0.0.6' }), await heldExport(`${a!.url}${EXPORT}`, { localAddress: '127.0.0.6' })];
      expect(exports.map((e) => e.status)).to.deep.equal([200, 200, 429]);
      for (const e of exports) e.close();
    } finally {
      await postgres.start();
    }
    // once both reach the database again, a new caller's narratives count across them
    for (const instance of [a!, b!]) {
      await eventually('the app database', 30_000, async () => (await fetch(`${instance.url}/health/ready`)).status === 200);
    }
    const statuses = [];
    for (const instance of [a!, b!, a!, b!]) statuses.push(await narrateFrom('127.0.0.7', instance.url));
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
  });
});
