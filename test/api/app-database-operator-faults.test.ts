import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { openAppDatabase } from '../../src/appdb/app-database.js';
import { APP_DB_DEFAULT_SIZES } from '../../src/config.js';
import { call } from '../helpers/http.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { spawnServer, type ServerProcess } from '../helpers/server-process.js';
import { demoTemplateDir, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** The unit-of-work time limit of these tests: short, so that a frozen or cut-off database is answered for quickly. */
const TRANSACTION_TIMEOUT_MS = 2000;

/** How long a `slow` proxy holds each answer of the database. */
const SLOW_MS = 400;

/**
 * A TCP proxy in front of PostgreSQL that can stop forwarding, as a network partition does: `blackhole` holds
 * every byte in both directions (connections stay open), `drop-answers` forwards what the server sends to the
 * database but throws away what the database answers; `drop-answers-after-commit` and `cut-after-commit` pass
 * until a COMMIT goes through (a simple-protocol query `COMMIT`), then drop every answer from then on, or close
 * that connection towards the server (the COMMIT still reaches the database); `heal` forwards again (held bytes
 * first, in order); `slow` delays every answer by SLOW_MS (a database that answers, slowly).
 */
interface PartitionProxy {
  readonly port: number;
  mode: 'pass' | 'blackhole' | 'drop-answers' | 'drop-answers-after-commit' | 'cut-after-commit' | 'slow';
  /** The next connection whose client sends a packet holding this text is closed there (both sides), once. */
  cutOn: string | null;
  heal(): void;
  close(): Promise<void>;
}

async function startPartitionProxy(targetPort: number): Promise<PartitionProxy> {
  const pairs = new Set<{ flush(): void; destroy(): void }>();
  const proxy: PartitionProxy = {
    port: 0,
    mode: 'pass',
    cutOn: null,
    heal() {
      proxy.mode = 'pass';
      for (const pair of pairs) pair.flush();
    },
    async close() {
      for (const pair of pairs) pair.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    const toServer: Buffer[] = [];
    const toClient: Buffer[] = [];
    const pair = {
      flush() {
        for (const chunk of toServer.splice(0)) upstream.write(chunk);
        for (const chunk of toClient.splice(0)) client.write(chunk);
      },
      destroy() {
        client.destroy();
        upstream.destroy();
      },
    };
    pairs.add(pair);
    client.on('error', () => pair.destroy());
    upstream.on('error', () => pair.destroy());
    client.on('close', () => {
      pairs.delete(pair);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
    client.on('end', () => upstream.end());
    client.on('data', (chunk: Buffer) => {
      if (proxy.cutOn !== null && chunk.includes(proxy.cutOn)) {
        proxy.cutOn = null;
        return pair.destroy();
      }
      if (proxy.mode === 'blackhole') return void toServer.push(chunk);
      upstream.write(chunk);
      if (!chunk.includes('COMMIT\0')) return;
      if (proxy.mode === 'drop-answers-after-commit') proxy.mode = 'drop-answers';
      else if (proxy.mode === 'cut-after-commit') {
        proxy.mode = 'pass';
        // the database reads the COMMIT and then the end of the connection: it commits, the server hears nothing
        client.destroy();
        upstream.end();
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (proxy.mode === 'slow') {
        upstream.pause();
        setTimeout(() => {
          client.write(chunk);
          upstream.resume();
        }, SLOW_MS);
        return;
      }
      if (proxy.mode === 'pass' || proxy.mode === 'drop-answers-after-commit' || proxy.mode === 'cut-after-commit') client.write(chunk);
      else if (proxy.mode === 'blackhole') toClient.push(chunk);
      // drop-answers: lost on the way
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (proxy as { port: number }).port = (server.address() as net.AddressInfo).port;
  return proxy;
}

/** The ids of the processes whose parent is `pid` (PostgreSQL's backends). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return children;
}

/** Runs `work` on a new connection to `url` (an 'error' listener: a server that goes away is no uncaught error). */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

interface Answer {
  readonly marker: string;
  status: number;
  detail: string;
  answeredAtEpochMs: number;
}

/** `count` writers saving views (each with a marker as its name) until `stop`. */
function startWriters(url: string, count: number): { answers: Answer[]; stop(): Promise<void> } {
  const answers: Answer[] = [];
  let stopped = false;
  let serial = 0;
  const writer = async (index: number): Promise<void> => {
    while (!stopped) {
      const answer: Answer = { marker: `p${index}-${++serial}`, status: 0, detail: '', answeredAtEpochMs: 0 };
      answers.push(answer);
      const res = await call(url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: answer.marker, params: {} } });
      answer.answeredAtEpochMs = Date.now();
      answer.status = res.status;
      answer.detail = res.status === 503 ? String((res.body as { detail?: unknown } | undefined)?.detail ?? '') : '';
    }
  };
  const running = Array.from({ length: count }, (_, i) => writer(i));
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

describe('the app database as an operator breaks it (partition, read-only, frozen at shutdown)', function () {
  this.timeout(120_000);
  let postgres: TestPostgres;
  let stopped: number[] = [];
  let server: TestServer | null = null;
  let proxy: PartitionProxy | null = null;

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
    proxy?.heal();
    await server?.close();
    server = null;
    await proxy?.close();
    proxy = null;
  });
  after(async () => postgres.close());

  it('a partition that holds every byte, then heals: no write refused with 503 is committed afterwards, no 500', async () => {
    const url = await postgres.createDatabase('partition');
    proxy = await startPartitionProxy(postgres.port);
    const viaProxy = url.replace(`:${postgres.port}/`, `:${proxy.port}/`);
    server = await startTestServer({ env: { APP_DB_URL: viaProxy, APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS) } });
    const writers = startWriters(server.url, 8);
    try {
      await until(() => writers.answers.filter((a) => a.status === 200).length >= 40, { what: 'writes to succeed' });
      proxy.mode = 'blackhole';
      const cutAt = writers.answers.length;
      await until(() => writers.answers.slice(cutAt).filter((a) => a.status === 503).length >= 16, { deadline: 20_000, what: 'writes refused behind the partition' });
      proxy.heal();
      await until(() => writers.answers.slice(-8).some((a) => a.status === 200), { deadline: 20_000, what: 'a write to succeed after the partition healed' });
    } finally {
      await writers.stop();
    }
    // what the database had been sent meanwhile is worked off once the bytes arrive
    await withClient(url, (client) =>
      until(async () => {
        const busy = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'");
        return busy.rows[0]!.n === 0;
      }),
    );
    const stored = new Set(await withClient(url, async (client) => (await client.query<{ name: string }>('SELECT name FROM saved_views')).rows.map((r) => r.name)));
    const { answers } = writers;
    expect(answers.filter((a) => a.status !== 0 && a.status !== 200 && a.status !== 503).map((a) => a.status), 'neither 200 nor 503').to.deep.equal([]);
    expect(answers.filter((a) => a.status === 200 && !stored.has(a.marker)).map((a) => a.marker), 'acknowledged writes missing').to.deep.equal([]);
    // a 503 that says "not saved" is never followed by its commit; one that says "may have been saved" may be
    const refused = answers.filter((a) => a.status === 503 && !/may have been saved/.test(a.detail));
    expect(refused.length).to.be.greaterThan(0);
    expect(refused.filter((a) => stored.has(a.marker)).map((a) => a.marker), 'refused writes that committed later').to.deep.equal([]);
  });

  for (const [mode, what] of [
    ['drop-answers-after-commit', 'its answer is lost'],
    ['cut-after-commit', 'the connection breaks'],
  ] as const) {
    it(`a COMMIT that reaches the database while ${what}: 503 saying the write may have been saved (it was), no 500`, async () => {
      const url = await postgres.createDatabase('lostcommit');
      proxy = await startPartitionProxy(postgres.port);
      const viaProxy = url.replace(`:${postgres.port}/`, `:${proxy.port}/`);
      server = await startTestServer({ env: { APP_DB_URL: viaProxy, APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS) } });
      const view = (name: string) => call(server!.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name, params: {} } });
      expect((await view('before')).status).to.equal(200);
      proxy.mode = mode;
      const sentAt = performance.now();
      const res = await view('in doubt');
      const took = performance.now() - sentAt;
      proxy.heal();
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      expect(res.body.detail).to.match(/may have been saved/);
      expect(took).to.be.below(TRANSACTION_TIMEOUT_MS + 1500);
      const stored = await withClient(url, async (client) =>
        until(async () => (await client.query<{ name: string }>("SELECT name FROM saved_views WHERE name = 'in doubt'")).rows.length === 1, { what: 'the COMMIT to be carried out' }),
      );
      expect(stored).to.equal(true);
      // and the server writes again
      expect((await until(async () => (await view('after')).status === 200 || undefined, { every: 100, what: 'a write after' })) ?? false).to.equal(true);
    });
  }

  it('a database that turned read-only (default_transaction_read_only, a standby): writes answer 503, reads 200, never 500', async () => {
    const url = await postgres.createDatabase('readonly');
    server = await startTestServer({ env: { APP_DB_URL: url, APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS) } });
    const first = await call(server.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'before', params: {} } });
    expect(first.status).to.equal(200);
    const database = new URL(url).pathname.slice(1);
    await withClient(url, async (client) => {
      await client.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
      // the server's pooled connections read the setting when they are opened: end them
      await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await call(server.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: `ro-${i}`, params: {} } });
      statuses.push(res.status);
      if (res.status === 503) expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    }
    expect(statuses).to.deep.equal([503, 503, 503, 503, 503, 503]);
    const read = await until(async () => {
      const res = await call(server!.url, '/api/views?tenant=kantonsspital');
      return res.status === 200 && res;
    });
    expect(read.status).to.equal(200);
    await withClient(url, async (client) => {
      await client.query('SET default_transaction_read_only = off');
      await client.query(`ALTER DATABASE "${database}" SET default_transaction_read_only = off`);
    });
  });

  it('a database that answers every statement 400 ms late: writes answer 200 or 503 within the time limit, a 503 is never saved, no 500', async () => {
    const url = await postgres.createDatabase('slow');
    proxy = await startPartitionProxy(postgres.port);
    const viaProxy = url.replace(`:${postgres.port}/`, `:${proxy.port}/`);
    server = await startTestServer({ env: { APP_DB_URL: viaProxy, APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS) } });
    const writers = startWriters(server.url, 8);
    try {
      await until(() => writers.answers.filter((a) => a.status === 200).length >= 40, { what: 'writes to succeed' });
      proxy.mode = 'slow';
      const slowFrom = writers.answers.length;
      await until(() => writers.answers.slice(slowFrom).filter((a) => a.status !== 0).length >= 24, { deadline: 60_000, what: 'writes answered while the database is slow' });
      proxy.heal();
    } finally {
      await writers.stop();
    }
    await withClient(url, (client) =>
      until(async () => {
        const busy = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'");
        return busy.rows[0]!.n === 0;
      }),
    );
    const stored = new Set(await withClient(url, async (client) => (await client.query<{ name: string }>('SELECT name FROM saved_views')).rows.map((r) => r.name)));
    const { answers } = writers;
    expect(answers.filter((a) => a.status !== 0 && a.status !== 200 && a.status !== 503).map((a) => a.status), 'neither 200 nor 503').to.deep.equal([]);
    expect(answers.filter((a) => a.status === 200 && !stored.has(a.marker)).map((a) => a.marker), 'acknowledged writes missing').to.deep.equal([]);
    expect(answers.filter((a) => a.status === 503 && !/may have been saved/.test(a.detail) && stored.has(a.marker)).map((a) => a.marker), 'refused writes that committed').to.deep.equal([]);
  });

  it('a database that takes no more connections (connection limit reached): writes and reads answer 503, never 500', async () => {
    const adminUrl = await postgres.createDatabase('full');
    const database = new URL(adminUrl).pathname.slice(1);
    // a role of its own: a superuser is exempt from connection limits
    const role = `app_${database}`;
    await withClient(adminUrl, async (client) => {
      await client.query(`CREATE ROLE "${role}" LOGIN PASSWORD 'app'`);
      await client.query(`ALTER DATABASE "${database}" OWNER TO "${role}"`);
      await client.query(`ALTER SCHEMA public OWNER TO "${role}"`);
    });
    const url = new URL(adminUrl);
    url.username = role;
    url.password = 'app';
    server = await startTestServer({ env: { APP_DB_URL: url.href, APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS) } });
    const view = (name: string) => call(server!.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name, params: {} } });
    expect((await view('before')).status).to.equal(200);
    await withClient(adminUrl, async (client) => {
      await client.query(`ALTER ROLE "${role}" CONNECTION LIMIT 0`);
      await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await view(`full-${i}`)).status, (await call(server.url, '/api/views?tenant=kantonsspital')).status);
      expect(statuses).to.deep.equal(Array.from({ length: 8 }, () => 503));
    } finally {
      await withClient(adminUrl, (client) => client.query(`ALTER ROLE "${role}" CONNECTION LIMIT -1`));
    }
    expect((await until(async () => (await view('after')).status === 200 || undefined, { every: 100, what: 'a write once connections are taken again' })) ?? false).to.equal(true);
  });

  it('a connection that breaks during the migrations at start is a database to try again, not a failed migration (exit 3)', async () => {
    const url = await postgres.createDatabase('migratecut');
    proxy = await startPartitionProxy(postgres.port);
    const viaProxy = url.replace(`:${postgres.port}/`, `:${proxy.port}/`);
    proxy.cutOn = 'pg_try_advisory_lock';
    const opened = await openAppDatabase({ kind: 'postgres', url: viaProxy, ...APP_DB_DEFAULT_SIZES }, pino({ level: 'silent' }));
    try {
      expect(proxy.cutOn, 'the migration connection was cut').to.equal(null);
      await until(() => opened.ping().then(() => true, () => false), { what: 'the app database to be ready after the retry' });
    } finally {
      await opened.close();
    }
  });

  it('PostgreSQL frozen while the server starts: it listens, answers 503, writes once the database resumes, and stops within SHUTDOWN_TIMEOUT_MS', async () => {
    const url = await postgres.createDatabase('frozenstart');
    const data = tempDir('ads-frozen-start-');
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    let child: ServerProcess | null = null;
    const postmaster = postgres.pid!;
    process.kill(postmaster, 'SIGSTOP');
    stopped = [postmaster, ...childrenOf(postmaster)];
    for (const pid of stopped.slice(1)) process.kill(pid, 'SIGSTOP');
    try {
      const startedAt = performance.now();
      child = await spawnServer({ DATA_DIR: data.dir, GIT_WORKSPACES_DIR: '', APP_DB_URL: url, APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS), SHUTDOWN_DELAY_MS: '0', SHUTDOWN_TIMEOUT_MS: '2000' });
      // connecting gives up after 5 s; the start does not wait longer for the database
      expect(performance.now() - startedAt).to.be.below(20_000);
      const write = await call(child.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'frozen', params: {} } });
      expect(write.status).to.equal(503);
      expect(write.headers.get('retry-after')).to.match(/^\d+$/);
      for (const pid of stopped) process.kill(pid, 'SIGCONT');
      stopped = [];
      const server = child;
      await until(async () => (await call(server.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'thawed', params: {} } })).status === 200, {
        deadline: 30_000,
        every: 200,
        what: 'a write once the database resumed',
      });
      const sentAt = performance.now();
      child.child.kill('SIGTERM');
      expect(await child.exited).to.equal(0);
      expect(performance.now() - sentAt).to.be.below(2000 + 3000);
    } finally {
      for (const pid of stopped) process.kill(pid, 'SIGCONT');
      stopped = [];
      await child?.kill();
      data.remove();
    }
  });

  it('PostgreSQL frozen: /health and /health/ready answer 503 within 3 s, and 200 again once it resumes', async () => {
    const url = await postgres.createDatabase('frozenhealth');
    server = await startTestServer({ env: { APP_DB_URL: url, APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS) } });
    expect((await call(server.url, '/health/ready')).status).to.equal(200);
    const postmaster = postgres.pid!;
    process.kill(postmaster, 'SIGSTOP');
    stopped = [postmaster, ...childrenOf(postmaster)];
    for (const pid of stopped.slice(1)) process.kill(pid, 'SIGSTOP');
    const took: number[] = [];
    for (const path of ['/health', '/health/ready', '/health/ready']) {
      const sentAt = performance.now();
      const res = await call(server.url, path);
      took.push(Math.round(performance.now() - sentAt));
      expect(res.status, path).to.equal(503);
    }
    expect(Math.max(...took), `answered after ${took.join(', ')} ms`).to.be.below(3000 + 1500);
    for (const pid of stopped) process.kill(pid, 'SIGCONT');
    stopped = [];
    await until(async () => (await call(server!.url, '/health/ready')).status === 200, { deadline: 30_000, every: 200, what: 'ready again once the database resumed' });
  });

  it('SIGTERM while PostgreSQL is frozen: the process ends within SHUTDOWN_TIMEOUT_MS', async () => {
    const url = await postgres.createDatabase('frozenstop');
    const data = tempDir('ads-frozen-stop-');
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    let child: ServerProcess | null = null;
    try {
      child = await spawnServer({
        DATA_DIR: data.dir,
        GIT_WORKSPACES_DIR: '',
        APP_DB_URL: url,
        APP_DB_TRANSACTION_TIMEOUT_MS: String(TRANSACTION_TIMEOUT_MS),
        SHUTDOWN_DELAY_MS: '0',
        SHUTDOWN_TIMEOUT_MS: '2000',
      });
      // pooled connections, and one write in flight when the database freezes
      expect((await call(child.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'warm', params: {} } })).status).to.equal(200);
      const postmaster = postgres.pid!;
      process.kill(postmaster, 'SIGSTOP');
      stopped = [postmaster, ...childrenOf(postmaster)];
      for (const pid of stopped.slice(1)) process.kill(pid, 'SIGSTOP');
      const inFlight = call(child.url, '/api/views', { method: 'POST', json: { tenant: 'kantonsspital', entity: 'cost_centres', name: 'frozen', params: {} } }).catch(() => null);
      const sentAt = performance.now();
      child.child.kill('SIGTERM');
      const code = await Promise.race([child.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 8000).unref())]);
      const took = performance.now() - sentAt;
      expect(code, `after ${Math.round(took)} ms`).to.equal(0);
      expect(took).to.be.below(2000 + 3000);
      const answer = await inFlight;
      expect(answer === null || answer.status === 503).to.equal(true);
    } finally {
      for (const pid of stopped) process.kill(pid, 'SIGCONT');
      stopped = [];
      await child?.kill();
      data.remove();
    }
  });
});
