import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { STALL_BYTES, StoreStoppedError, StoreTimeoutError, StoreTransport } from '../../src/store/store-transport.js';
import { until } from '../helpers/until.js';

/** What a request through the transport ended with: the body's text, or the error of the request or of its body. */
function fetchThrough(transport: StoreTransport, port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = transport.request({ host: '127.0.0.1', port, path, method: 'GET', agent: new http.Agent({ keepAlive: true }) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('StoreTransport', function () {
  this.timeout(10_000);
  let server: http.Server;
  let port: number;
  const held: http.ServerResponse[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/hang') {
        held.push(res);
        return;
      }
      if (req.url === '/stall') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('x'.repeat(10));
        held.push(res);
        return;
      }
      if (req.url === '/trickle-head') {
        // the head a byte every 40 ms: never silent for the first-byte limit, complete only after 2 s
        const head = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok';
        let sent = 0;
        const timer = setInterval(() => {
          if (sent < head.length) res.socket?.write(head[sent++]!);
        }, 40);
        res.socket?.once('close', () => clearInterval(timer));
        held.push(res);
        return;
      }
      if (req.url === '/busy-after-answer') {
        // the answer is sent (in the kernel's buffers), then this process is busy past the client's limits
        res.end('ok');
        const until = performance.now() + 3 * deadlines.firstByteMs;
        while (performance.now() < until);
        return;
      }
      if (req.url === '/big') {
        // 2 MiB at full speed
        res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) });
        res.end(Buffer.alloc(2 * 1024 * 1024, 120));
        return;
      }
      if (req.url === '/trickle-body') {
        // a byte every 40 ms: never silent for the idle limit, done after an hour
        res.writeHead(200, { 'content-length': '100000' });
        const timer = setInterval(() => res.write('x'), 40);
        res.once('close', () => clearInterval(timer));
        held.push(res);
        return;
      }
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const deadlines = { connectMs: 200, firstByteMs: 200, idleMs: 200 };

  it('gives up a connection that does not open (a name that never resolves) after the connect limit, not the agent\'s socket timeout', async () => {
    // the agent's socket timeout (the global agent has 5 s) ends nothing here: the connect limit alone does
    const agent = new http.Agent({ keepAlive: true, timeout: 100 });
    const transport = new StoreTransport(http, { connectMs: 400, firstByteMs: 60_000, idleMs: 60_000 });
    const asked = performance.now();
    const err = await new Promise<unknown>((resolve) => {
      const req = transport.request({ host: 'store.invalid', port, path: '/ok', method: 'GET', agent, lookup: () => {} }, () => resolve(null));
      req.on('error', resolve);
      req.end();
    });
    const ms = performance.now() - asked;
    expect(err).to.be.instanceOf(StoreTimeoutError);
    expect(err).to.include({ phase: 'connect', ms: 400 });
    expect(ms).to.be.within(390, 1500);
    expect(transport.inFlight).to.equal(0);
    agent.destroy();
  });

  it('gives up a request the server never answers after the first-byte limit', async () => {
    const transport = new StoreTransport(http, deadlines);
    const err = await fetchThrough(transport, port, '/hang').then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(StoreTimeoutError);
    expect(err).to.include({ phase: 'first-byte', ms: 200 });
    expect(transport.inFlight).to.equal(0);
  });

  it('gives up an answer whose body stalls after the idle limit', async () => {
    const transport = new StoreTransport(http, deadlines);
    const err = await fetchThrough(transport, port, '/stall').then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(StoreTimeoutError);
    expect(err).to.include({ phase: 'idle', ms: 200 });
    expect(transport.inFlight).to.equal(0);
  });

  it('gives up an answer whose head trickles in after the first-byte limit, though it is never silent that long', async () => {
    const transport = new StoreTransport(http, deadlines);
    const asked = performance.now();
    const err = await fetchThrough(transport, port, '/trickle-head').then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(StoreTimeoutError);
    expect(err).to.include({ phase: 'first-byte', ms: 200 });
    expect(performance.now() - asked).to.be.below(1500);
    expect(transport.inFlight).to.equal(0);
  });

  it('gives up a body that trickles (less than STALL_BYTES in two idle periods in a row), though it is never silent that long', async () => {
    const transport = new StoreTransport(http, deadlines);
    const asked = performance.now();
    const err = await fetchThrough(transport, port, '/trickle-body').then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(StoreTimeoutError);
    expect(err).to.include({ phase: 'slow', ms: 200 });
    expect((err as Error).message).to.match(new RegExp(`less than ${STALL_BYTES / 1024} KiB per 200 ms`));
    expect(performance.now() - asked).to.be.below(1500);
    expect(transport.inFlight).to.equal(0);
  });

  it('does not call an answer slow when this process, not the store, was too busy to read it', async () => {
    const transport = new StoreTransport(http, deadlines);
    const body = await new Promise<number>((resolve, reject) => {
      const req = transport.request({ host: '127.0.0.1', port, path: '/big', method: 'GET', agent: new http.Agent({ keepAlive: true }) }, (res) => {
        let bytes = 0;
        let blocked = false;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (blocked) return;
          blocked = true;
          // the event loop held for three idle periods: nothing is read meanwhile (a search index built, a GC)
          const until = performance.now() + 3 * deadlines.idleMs;
          while (performance.now() < until);
        });
        res.on('end', () => resolve(bytes));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(body).to.equal(2 * 1024 * 1024);
    expect(transport.inFlight).to.equal(0);
  });

  it('reads a connection and an answer that arrived while this process was busy before judging a limit', async () => {
    const transport = new StoreTransport(http, deadlines);
    // busy past the connect limit right after the request starts: the connection opens meanwhile
    const connected = fetchThrough(transport, port, '/ok');
    const until = performance.now() + 3 * deadlines.connectMs;
    while (performance.now() < until);
    expect(await connected).to.equal('ok');
    // busy past the first-byte limit right after the answer was sent
    expect(await fetchThrough(transport, port, '/busy-after-answer')).to.equal('ok');
    expect(transport.inFlight).to.equal(0);
  });

  it('waits once more when this process was busy past a limit, so that a store it holds up can still answer', async () => {
    const transport = new StoreTransport(http, deadlines);
    const before = held.length;
    const answered = fetchThrough(transport, port, '/hang');
    await until(() => held.length > before, { what: 'the request at the server' });
    // busy past the first-byte limit (the server, in this process, could not have answered meanwhile)
    const busyUntil = performance.now() + 2 * deadlines.firstByteMs;
    while (performance.now() < busyUntil);
    // it answers a moment later, after the limit's timer has run: within the period granted once more
    const res = held[held.length - 1]!;
    setTimeout(() => res.end('late'), deadlines.firstByteMs / 4);
    expect(await answered).to.equal('late');
    // a store that still does not answer is given up after that second period
    const asked = performance.now();
    const err = await fetchThrough(transport, port, '/hang').then(() => null, (e: unknown) => e);
    expect(err).to.include({ phase: 'first-byte' });
    expect(performance.now() - asked).to.be.below(4 * deadlines.firstByteMs);
  });

  it('does not count against a limit the time this process was busy, also when it was busy for less than 1.5 limits', async () => {
    const transport = new StoreTransport(http, deadlines);
    const before = held.length;
    const answered = fetchThrough(transport, port, '/hang');
    await until(() => held.length > before, { what: 'the request at the server' });
    // busy for 0.9 limits (a first request's validators compiled): the server, in this process, could not answer
    const busyUntil = performance.now() + 0.9 * deadlines.firstByteMs;
    while (performance.now() < busyUntil);
    // it answers 0.3 limits later: the store had less than the limit of this process's time
    const res = held[held.length - 1]!;
    setTimeout(() => res.end('late'), 0.3 * deadlines.firstByteMs);
    expect(await answered).to.equal('late');
    expect(transport.inFlight).to.equal(0);
  });

  it('passes answers that come in time, and forgets them once read', async () => {
    const transport = new StoreTransport(http, deadlines);
    expect(await fetchThrough(transport, port, '/ok')).to.equal('ok');
    expect(transport.inFlight).to.equal(0);
  });

  it('leaves no time limit armed for a request it cut before its answer (stop() at shutdown)', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const transport = new StoreTransport(http, { connectMs: 60_000, firstByteMs: 60_000, idleMs: 60_000 });
    const heldBefore = held.length;
    const hanging = fetchThrough(transport, port, '/hang').then(() => null, (e: unknown) => e);
    await until(() => held.length > heldBefore, { what: 'the request at the server' });
    // its first-byte limit is armed while it waits
    const armed = timers();
    transport.stop();
    expect(await hanging).to.be.instanceOf(StoreStoppedError);
    await until(() => timers() < armed, { deadline: 2000, what: 'the first-byte limit of the cut request to be disarmed' });
  });

  it('cuts every request in flight on stop(), and every later one', async () => {
    const transport = new StoreTransport(http, { connectMs: 60_000, firstByteMs: 60_000, idleMs: 60_000 });
    const heldBefore = held.length;
    const hanging = fetchThrough(transport, port, '/hang').then(() => null, (e: unknown) => e);
    const stalling = fetchThrough(transport, port, '/stall').then(() => null, (e: unknown) => e);
    await until(() => held.length >= heldBefore + 2, { what: 'both requests at the server' });
    transport.stop();
    expect(await hanging).to.be.instanceOf(StoreStoppedError);
    expect(await stalling).to.be.instanceOf(StoreStoppedError);
    expect(await fetchThrough(transport, port, '/ok').then(() => null, (e: unknown) => e)).to.be.instanceOf(StoreStoppedError);
    expect(transport.inFlight).to.equal(0);
  });
});
