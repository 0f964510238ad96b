import { expect } from 'chai';
import pg from 'pg';
import { pino } from 'pino';
import { RefreshChannel } from '../../src/store/refresh-channel.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

const DEADLINE_MS = 500;

describe('the refresh channel against a database that stops answering (src/store/refresh-channel.ts)', function () {
  this.timeout(60_000);

  it('answers an announcement false within its deadline when the listening backend is frozen, and listens again on a new connection', async () => {
    const url = await (await sharedPostgres()).createDatabase('channel');
    let caughtUp = 0;
    const channel = await RefreshChannel.open(url, 'one', { refresh: () => {}, caughtUp: () => caughtUp++ }, pino({ level: 'silent' }), DEADLINE_MS);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    let frozen: number | null = null;
    try {
      await until(() => channel.state === 'shared', { what: 'the channel to listen' });
      const backend = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'analytics-desk-server store refresh'");
      expect(backend.rows).to.have.length(1);
      frozen = backend.rows[0]!.pid;
      process.kill(frozen, 'SIGSTOP');
      const started = performance.now();
      expect(await channel.announce({ kind: 'all' })).to.equal(false);
      expect(performance.now() - started).to.be.below(DEADLINE_MS + 1000);
      // the frozen connection is given up; a new one listens and asks for a sync of everything it may have missed
      await until(() => channel.state === 'shared' && caughtUp === 1, { what: 'the channel to listen again and catch up' });
      expect(await channel.announce({ kind: 'all' })).to.equal(true);
    } finally {
      if (frozen !== null) process.kill(frozen, 'SIGCONT');
      await channel.close();
      await admin.end();
    }
  });
});
