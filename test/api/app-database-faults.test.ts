import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import pg from 'pg';
import { call } from '../helpers/http.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** The unit-of-work time limit of these tests: short, so that a frozen database is answered for quickly. */
const TRANSACTION_TIMEOUT_MS = 2000;
/** How much later than the time limit an answer may come (the HTTP round trip, a busy test machine). */
const ANSWER_SLACK_MS = 1500;
const WRITERS = 16;
const TENANTS = ['kantonsspital', 'hopital-cantonal'];

/** One write a writer sent: its marker (stored in the row), when it was sent and answered, and the answer. */
interface Attempt {
  readonly marker: string;
  readonly kind: 'cell' | 'view';
  readonly sentAt: number;
  answeredAt: number;
  status: number;
  retryAfter: string | null;
}

/** The ids of the processes whose parent is `pid` (PostgreSQL's backends and helpers of its postmaster). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(name));
    } catch {
      // the process ended meanwhile
    }
  }
  return children;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * 16 writers, half adding notebook cells and half saving views on two tenants, each sending its next write when
 * the last is answered, until `stop`. Every write carries a marker its row stores.
 */
function startWriters(url: string): { attempts: Attempt[]; stop(): Promise<void> } {
  const attempts: Attempt[] = [];
  let stopped = false;
  let serial = 0;
  const writer = async (index: number): Promise<void> => {
    const kind = index % 2 === 0 ? 'cell' : 'view';
    const tenant = TENANTS[index % TENANTS.length]!;
    while (!stopped) {
      const marker = `w${index}-${++serial}`;
      const attempt: Attempt = { marker, kind, sentAt: performance.now(), answeredAt: 0, status: 0, retryAfter: null };
      attempts.push(attempt);
      const res =
        kind === 'cell'
          ? await call(url, `/${tenant}/api/notebook/cells`, { method: 'POST', json: { cell: { type: 'narrative', text: { en: marker } } } })
          : await call(url, '/api/views', { method: 'POST', json: { tenant, entity: 'cost_centres', name: marker, params: { sort: 'budget_chf' } } });
      attempt.answeredAt = performance.now();
      attempt.status = res.status;
      attempt.retryAfter = res.headers.get('retry-after');
    }
  };
  const running = Array.from({ length: WRITERS }, (_, i) => writer(i));
  return {
    attempts,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/** The markers stored in the app database at `url`, of cells and of saved views. */
async function storedMarkers(url: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const cells = await client.query<{ content: string }>('SELECT content FROM cells');
    const views = await client.query<{ name: string }>('SELECT name FROM saved_views');
    const markers = new Set(views.rows.map((r) => r.name));
    for (const row of cells.rows) {
      const text = (JSON.parse(row.content) as { text?: { en?: string } }).text?.en;
      if (text !== undefined) markers.add(text);
    }
    return markers;
  } finally {
    await client.end();
  }
}

/** Waits until the writers have had `count` more answers of `status` than now. */
async function moreAnswers(attempts: Attempt[], status: (s: number) => boolean, count: number, what: string): Promise<void> {
  const before = attempts.filter((a) => status(a.status)).length;
  await until(() => attempts.filter((a) => status(a.status)).length >= before + count, { deadline: 20_000, what });
}

const ok = (s: number): boolean => s === 200 || s === 201;

describe('the app database failing under 16 writers (PostgreSQL killed, frozen)', function () {
  this.timeout(120_000);
  let postgres: TestPostgres;
  let server: TestServer | null = null;
  let stopped: number[] = [];

  before(async () => {
    postgres = await startPostgres();
  });
  afterEach(async () => {
    for (const pid of stopped) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone
      }
    }
    stopped = [];
    await postgres.start().catch(() => undefined);
    await server?.close();
    server = null;
  });
  after(async () => postgres.close());

  it('postmaster killed with SIGKILL and restarted, three times: no 500, every failure 503 with Retry-After, every 2xx stored', async () => {
    const url = await postgres.createDatabase('killed');
    server = await startTestServer({ env: { APP_DB_URL: url, APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS) } });
    const writers = startWriters(server.url);
    try {
      for (let round = 0; round < 3; round++) {
        await moreAnswers(writers.attempts, ok, 32, 'writes to succeed');
        const postmaster = postgres.pid!;
        const backends = childrenOf(postmaster);
        process.kill(postmaster, 'SIGKILL');
        // the backends notice that their postmaster died and end; only then may a new one start on the same data
        await until(() => !alive(postmaster) && backends.every((pid) => !alive(pid)), { what: 'PostgreSQL and its backends to end' });
        await moreAnswers(writers.attempts, (s) => s === 503, 8, 'writes refused while the database is down');
        await postgres.start();
      }
      await moreAnswers(writers.attempts, ok, 32, 'writes to succeed after the last restart');
    } finally {
      await writers.stop();
    }
    const { attempts } = writers;
    const statuses = new Map<number, number>();
    for (const a of attempts) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    expect([...statuses.keys()].sort(), `answers ${JSON.stringify([...statuses])}`).to.deep.equal([200, 201, 503].filter((s) => statuses.has(s)));
    expect(statuses.get(503) ?? 0).to.be.greaterThan(0);
    expect(attempts.filter((a) => a.status === 503 && a.retryAfter === null)).to.deep.equal([]);
    const stored = await storedMarkers(url);
    const lost = attempts.filter((a) => ok(a.status) && !stored.has(a.marker)).map((a) => a.marker);
    expect(lost, 'acknowledged writes missing').to.deep.equal([]);
  });

  it('postmaster and backends frozen with SIGSTOP: writes in flight answer 503 within the time limit, and none commits after its answer', async () => {
    const url = await postgres.createDatabase('frozen');
    server = await startTestServer({ env: { APP_DB_URL: url, APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS) } });
    const writers = startWriters(server.url);
    const { attempts } = writers;
    let frozenAt = 0;
    try {
      await moreAnswers(attempts, ok, 64, 'writes to succeed');
      const postmaster = postgres.pid!;
      // the postmaster first, so that it forks no backend after the list is read
      process.kill(postmaster, 'SIGSTOP');
      stopped = [postmaster, ...childrenOf(postmaster)];
      for (const pid of stopped.slice(1)) process.kill(pid, 'SIGSTOP');
      frozenAt = performance.now();
      // every writer has its write that was in flight answered, and one more sent after the freeze
      await until(() => Array.from({ length: WRITERS }, (_, i) => attempts.filter((a) => a.marker.startsWith(`w${i}-`) && a.sentAt > frozenAt && a.status !== 0).length >= 1).every(Boolean), {
        deadline: 20_000,
        what: 'every writer to be answered while the database is frozen',
      });
    } finally {
      await writers.stop();
    }
    const thawedAt = performance.now();
    for (const pid of stopped) process.kill(pid, 'SIGCONT');
    stopped = [];
    // the database works off what its backends had read before they stopped: wait until no session of the server is busy
    const admin = new pg.Client({ connectionString: url });
    admin.on('error', () => undefined);
    await admin.connect();
    try {
      await until(
        async () => {
          const busy = await admin.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'",
          );
          return busy.rows[0]!.n === 0;
        },
        { what: 'the resumed database to finish what it had been sent' },
      );
    } finally {
      await admin.end();
    }
    const inFlight = attempts.filter((a) => a.sentAt < frozenAt && a.answeredAt > frozenAt);
    const sentFrozen = attempts.filter((a) => a.sentAt > frozenAt && a.answeredAt < thawedAt);
    const answeredFrozen = [...inFlight, ...sentFrozen];
    expect(inFlight.length, 'writes in flight when the database froze').to.be.greaterThan(0);
    expect(sentFrozen.length).to.be.at.least(WRITERS);
    // nothing answered 500; what was sent after the freeze is refused; nothing waits longer than the time limit
    expect(attempts.filter((a) => a.status !== 0 && !ok(a.status) && a.status !== 503).map((a) => a.status)).to.deep.equal([]);
    expect(sentFrozen.filter((a) => a.status !== 503).map((a) => a.status)).to.deep.equal([]);
    expect(answeredFrozen.filter((a) => a.status === 503 && a.retryAfter === null)).to.deep.equal([]);
    const slowest = Math.max(...answeredFrozen.map((a) => a.answeredAt - a.sentAt));
    expect(slowest).to.be.below(TRANSACTION_TIMEOUT_MS + ANSWER_SLACK_MS);
    const stored = await storedMarkers(url);
    // a 503 is never followed by its commit; a 2xx is kept
    expect(answeredFrozen.filter((a) => a.status === 503 && stored.has(a.marker)).map((a) => a.marker), 'refused writes that committed later').to.deep.equal([]);
    expect(attempts.filter((a) => ok(a.status) && !stored.has(a.marker)).map((a) => a.marker), 'acknowledged writes missing').to.deep.equal([]);
    // and the server writes again once the database answers
    const after = await until(
      async () => {
        const res = await call(server!.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'after the thaw', params: {} } });
        return ok(res.status) && res;
      },
      { every: 100, what: 'a write to succeed after the thaw' },
    );
    expect(after.status).to.equal(200);
  });

  it('a migration that fails at start stops the start with exit code 3 and one line naming it, not "not reachable" retried', async () => {
    const url = await postgres.createDatabase('badmigration');
    // a table of that name without the columns a migration indexes
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('CREATE TABLE notes (x integer)');
    await client.end();
    const data = tempDir('ads-faults-migration-');
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATA_DIR: data.dir, GIT_WORKSPACES_DIR: '', APP_DB_URL: url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).to.equal(3);
      expect(stderr).to.match(/^failed to start: app database migration failed: .*column "tenant_id" does not exist\n$/m);
      expect(stdout + stderr).not.to.match(/not reachable/);
    } finally {
      data.remove();
    }
  });
});
