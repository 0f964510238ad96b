import { expect } from 'chai';
import { pino } from 'pino';
import { ExportLeases } from '../../src/auth/export-leases.js';
import { LimitStore } from '../../src/auth/limit-store.js';
import { ManualClock } from '../helpers/clock.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

const LEASE_MS = 60_000;

// Two ExportLeases on one PostgreSQL stand for two instances; an instance killed mid-export is one that stops
// renewing without giving its lease back (close). Expiry is judged on a clock the test sets, not by waiting.
describe('export leases across instances on one PostgreSQL', function () {
  this.timeout(60_000);
  const log = pino({ level: 'silent' });
  let stores: LimitStore[];
  let clock: ManualClock;
  let first: ExportLeases;
  let second: ExportLeases;

  beforeEach(async () => {
    const url = await (await sharedPostgres()).createDatabase('leases');
    stores = await Promise.all([LimitStore.open(url, log), LimitStore.open(url, log)]);
    clock = new ManualClock();
    first = new ExportLeases(stores[0]!, 1, LEASE_MS, log, clock.now);
    second = new ExportLeases(stores[1]!, 1, LEASE_MS, log, clock.now);
  });
  afterEach(async () => {
    first.close();
    second.close();
    await Promise.all(stores.map((store) => store.close()));
  });

  it('holds the slot of a killed instance until its lease has expired, then gives it to another instance', async () => {
    expect(await first.take('caller')).to.be.a('function');
    first.close();
    expect(await second.take('caller')).to.equal(null);
    clock.advance(LEASE_MS - 1);
    expect(await second.take('caller')).to.equal(null);
    clock.advance(1);
    expect(await second.take('caller')).to.be.a('function');
    expect(await first.take('caller')).to.equal(null);
  });

  it('gives the slot back at once when the export ends, and counts each caller apart', async () => {
    const release = await first.take('caller');
    expect(await second.take('other caller')).to.be.a('function');
    expect(await second.take('caller')).to.equal(null);
    release!();
    // the release is sent without waiting for its answer: the slot is free once the database has it
    await until(() => second.take('caller'), { what: 'the slot given back' });
  });

  it('renews the lease of a running export from the clock, so that its slot outlives the first lease', async () => {
    // a lease of 3 ms renews every millisecond of real time; the expiry it writes is read from the test's clock
    const renewing = new ExportLeases(stores[0]!, 1, 3, log, clock.now);
    try {
      const release = await renewing.take('long export');
      expect(release).to.be.a('function');
      clock.advance(60_000);
      const expiryIs = async (expected: number): Promise<boolean> => {
        const { rows } = await stores[1]!.query({ text: "SELECT leases FROM cost_limit_exports WHERE key = 'long export'" });
        return Object.values(rows[0].leases as Record<string, number>).includes(expected);
      };
      await until(() => expiryIs(clock.now() + 3), { what: 'the lease renewed on the moved clock' });
      expect(await second.take('long export')).to.equal(null);
      release!();
    } finally {
      renewing.close();
    }
  });

  it('sweeps the rows of callers whose leases all expired, and only those', async () => {
    await first.take('gone');
    clock.advance(LEASE_MS / 2);
    await first.take('running');
    clock.advance(LEASE_MS / 2);
    await second.sweep();
    const rows = await stores[0]!.query({ text: 'SELECT key FROM cost_limit_exports ORDER BY key' });
    expect(rows.rows.map((row: { key: string }) => row.key)).to.deep.equal(['running']);
  });
});
