import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { generateDemo } from '../../src/demo/generate.js';
import type { Logger } from '../../src/logger.js';
import { demoTemplateDir, startTestServer, tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const ROWS = 100_000; // materials rows per tenant: an export that a paused client keeps running
const NO_NEW_CONNECTIONS = 'shutting down: no new connections; finishing in-flight requests';

/** A logger that keeps its lines; `logged(msg)` resolves with the first line whose msg is `msg`. */
function capturedLog(): { logger: Logger; msgs: () => string[]; logged: (msg: string) => Promise<any> } {
  const lines: any[] = [];
  const waiters: { msg: string; resolve: (line: any) => void }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(String(chunk));
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.msg === line.msg)) waiter.resolve(line);
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, sink),
    msgs: () => lines.map((l) => l.msg as string),
    logged: (msg) =>
      new Promise((resolve) => {
        const seen = lines.find((l) => l.msg === msg);
        if (seen !== undefined) resolve(seen);
        else waiters.push({ msg, resolve });
      }),
  };
}

/** A server process started with `node --import tsx src/main.ts`, with its log lines as they come. */
interface Spawned {
  child: ChildProcess;
  port: Promise<number>;
  exited: Promise<number | null>;
  lines: any[];
  /** Resolves with the first log line whose msg is `msg` (already written or still to come). */
  logged(msg: string): Promise<any>;
}

function spawnMain(env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', GIT_WORKSPACES_DIR: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: any[] = [];
  const waiters: { msg: string; resolve: (line: any) => void }[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.msg === line.msg)) waiter.resolve(line);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logged = (msg: string) =>
    new Promise<any>((resolve, reject) => {
      const seen = lines.find((l) => l.msg === msg);
      if (seen !== undefined) resolve(seen);
      else waiters.push({ msg, resolve });
      void exited.then(() => reject(new Error(`exited without logging "${msg}"`)));
    });
  const port = logged('listening').then((line) => line.port as number);
  return { child, port, exited, lines, logged };
}

/** A GET on a connection of its own (no keep-alive pool): status and parsed JSON body. */
function getOnce(port: number, pathAndQuery: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: pathAndQuery, agent: false }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

/** Starts an export and stops reading after its first bytes; `rest()` reads it to its end (or its cut). */
async function pausedExport(
  port: number,
  agent: http.Agent | false = false,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; socket: net.Socket; rest: () => Promise<{ text: string; complete: boolean }> }> {
  const request = http.get({ host: '127.0.0.1', port, path: '/kantonsspital/dimensions/materials/export', agent });
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => request.once('response', resolve).once('error', reject));
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => {
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (chunks.length === 1) {
        response.pause();
        resolve();
      }
    });
  });
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    socket: response.socket,
    rest: () =>
      new Promise((resolve) => {
        const text = () => Buffer.concat(chunks).toString();
        response.once('end', () => resolve({ text: text(), complete: response.complete }));
        response.once('error', () => resolve({ text: text(), complete: false }));
        response.once('aborted', () => resolve({ text: text(), complete: false }));
        response.resume();
      }),
  };
}

/** Whether a new TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('graceful shutdown (src/main.ts, src/server.ts)', function () {
  this.timeout(120_000);
  const data = tempDir('ads-shutdown-');
  before(() => {
    generateDemo({ out: data.dir, tenants: 3, rows: ROWS });
  });
  after(() => data.remove());

  it('on SIGTERM refuses new connections while a streaming export completes, and exits 0', async () => {
    const server = spawnMain({ DATA_DIR: data.dir, KLS_DIR: path.join(data.dir, 'kls'), SHUTDOWN_TIMEOUT_MS: '60000' });
    try {
      const port = await server.port;
      const running = await pausedExport(port);
      expect(running.status).to.equal(200);
      expect((await getOnce(port, '/health/ready')).status).to.equal(200);

      server.child.kill('SIGTERM');
      await server.logged('shutting down: readiness answers 503');
      await server.logged('shutting down: no new connections; finishing in-flight requests');
      expect(await refused(port)).to.equal(true);
      const { text, complete } = await running.rest();
      expect(complete).to.equal(true);
      // records end in CRLF: a header and every row
      const records = text.split('\r\n');
      expect(records.pop()).to.equal('');
      expect(records).to.have.length(ROWS + 1);
      expect(await server.exited).to.equal(0);
      expect(server.lines.map((l) => l.msg)).to.include('stopped');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('answers readiness 503 at once and serves on for SHUTDOWN_DELAY_MS, then refuses new connections while a streaming export completes', async () => {
    // the delay's wait is the test's: it ends when the test releases it, however long the requests below take
    const asked: number[] = [];
    let release!: () => void;
    const wait = (ms: number) => {
      asked.push(ms);
      return new Promise<void>((resolve) => (release = resolve));
    };
    const log = capturedLog();
    const server = await startTestServer({ dataDir: data.dir, env: { SHUTDOWN_DELAY_MS: '3000' }, log: log.logger, timing: { wait } });
    let running: Awaited<ReturnType<typeof pausedExport>> | undefined;
    try {
      running = await pausedExport(server.port);
      expect(running.status).to.equal(200);
      expect((await getOnce(server.port, '/health/ready')).status).to.equal(200);

      const stopped = server.stop(60_000);
      expect(asked).to.deep.equal([3000]);
      const ready = await getOnce(server.port, '/health/ready');
      expect(ready.status).to.equal(503);
      expect(ready.body).to.include({ status: 'not_ready', reason: 'shutting-down' });
      // the delay: new connections are still served
      expect((await getOnce(server.port, '/health/live')).status).to.equal(200);
      expect((await getOnce(server.port, '/api/db-status/kantonsspital')).status).to.equal(200);
      expect(log.msgs()).not.to.include(NO_NEW_CONNECTIONS);

      release();
      await log.logged(NO_NEW_CONNECTIONS);
      expect(await refused(server.port)).to.equal(true);
      const { text, complete } = await running.rest();
      expect(complete).to.equal(true);
      expect(text.split('\r\n')).to.have.length(ROWS + 2);
      await stopped;
    } finally {
      running?.socket.destroy();
      release?.();
      await server.close();
    }
  });

  it('cuts off an export still running SHUTDOWN_TIMEOUT_MS after it stopped accepting, and exits 0', async () => {
    const server = spawnMain({ DATA_DIR: data.dir, KLS_DIR: path.join(data.dir, 'kls'), SHUTDOWN_TIMEOUT_MS: '500' });
    try {
      const port = await server.port;
      const held = await pausedExport(port);
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      const { text, complete } = await held.rest();
      expect(complete).to.equal(false);
      expect(text.split('\r\n').length).to.be.below(ROWS + 1);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('ends a keep-alive connection as soon as its answer has ended once the server stops accepting', async () => {
    // keep-alive timeout and grace both far longer than the wait below: only the server's closing can end the
    // connection once the export has ended
    const server = await startTestServer({ dataDir: data.dir, timing: { keepAliveTimeoutMs: 600_000 } });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const running = await pausedExport(server.port, agent);
      expect(running.headers.connection).to.equal('keep-alive');
      let closed = false;
      running.socket.once('close', () => (closed = true));
      const stopped = server.stop(600_000, 0);
      const { complete } = await running.rest();
      expect(complete).to.equal(true);
      await until(() => closed, { what: 'the server to close the keep-alive connection' });
      await stopped;
    } finally {
      agent.destroy();
      await server.close();
    }
  });

  it('on SIGTERM finishes a request whose body is still arriving, then exits 0', async () => {
    const copy = tempDir('ads-shutdown-body-');
    fs.cpSync(demoTemplateDir(), copy.dir, { recursive: true });
    const server = spawnMain({ DATA_DIR: copy.dir, KLS_DIR: path.join(copy.dir, 'kls') });
    try {
      const port = await server.port;
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const headers = { 'content-type': 'application/json', expect: '100-continue' };
        const req = http.request({ host: '127.0.0.1', port, path: '/api/refresh', method: 'POST', headers, agent: false }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        // the server's 100 Continue: it has accepted the connection and read the headers
        req.once('continue', () => {
          req.write('{"scope":');
          // The request is in flight (body half sent) when SIGTERM arrives; the rest follows once the server has
          // stopped accepting connections.
          server.child.kill('SIGTERM');
          void server.logged('shutting down: no new connections; finishing in-flight requests').then(() => req.end('"all"}'));
        });
        req.flushHeaders();
      });
      expect(answer.status).to.equal(200);
      expect(JSON.parse(answer.body).status).to.equal('skipped');
      expect(await server.exited).to.equal(0);
      expect(server.lines.map((l) => l.msg)).to.include.members(['shutting down: readiness answers 503', 'stopped']);
    } finally {
      server.child.kill('SIGKILL');
      copy.remove();
    }
  });

  it('refuses to start with one line naming the bad variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'http', STORE_CONCURRENCY: '0', TRUST_PROXY: 'proxy.lan' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).to.equal(2);
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.include('PORT').and.include('STORE_CONCURRENCY').and.include('TRUST_PROXY');
  });
});
