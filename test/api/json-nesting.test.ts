import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import zlib from 'node:zlib';
import { BODY_LIMIT_BYTES } from '../../src/http/body.js';
import { MAX_JSON_VALUES, MAX_JSON_DEPTH } from '../../src/http/body.js';
import { call, expectProblem } from '../helpers/http.js';
import { storedState } from '../helpers/sign-in.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** `inner` wrapped in `levels` objects `{"a": …}`. */
const nestedObjects = (levels: number, inner = '{}'): string => '{"a":'.repeat(levels) + inner + '}'.repeat(levels);

/** A body of nested arrays as large as the body limit allows: `[[[…]]]`. */
const nestedArraysAtLimit = (): string => '['.repeat(BODY_LIMIT_BYTES / 2) + ']'.repeat(BODY_LIMIT_BYTES / 2);

const post = (base: string, path: string, text: string) => call(base, path, { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });

function expectRefused(res: Awaited<ReturnType<typeof call>>, message: string): void {
  expectProblem(res, 400);
  expect(res.body.errors).to.deep.equal([{ in: 'body', name: '', message }]);
}

const expectTooDeep = (res: Awaited<ReturnType<typeof call>>): void => expectRefused(res, `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
const expectTooMany = (res: Awaited<ReturnType<typeof call>>): void => expectRefused(res, `holds more than ${MAX_JSON_VALUES} values`);

describe('the nesting depth and the number of values of JSON request bodies', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  const view = (params: string): string => `{"tenant":"kantonsspital","entity":"cost_centres","name":"Deep","params":${params}}`;

  it(`accepts a body nested ${MAX_JSON_DEPTH} levels deep`, async () => {
    // the body is level 1, params level 2
    const res = await post(server.url, '/api/views', view(nestedObjects(MAX_JSON_DEPTH - 2)));
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
  });

  it(`answers 400 past ${MAX_JSON_DEPTH} levels, in a view's params and a cell (it was a 500 from the stack), writing nothing`, async () => {
    const before = storedState(server.dataDir);
    expectTooDeep(await post(server.url, '/api/views', view(nestedObjects(MAX_JSON_DEPTH - 1))));
    expectTooDeep(await post(server.url, '/api/views', view(nestedObjects(5_000))));
    expectTooDeep(await post(server.url, '/kantonsspital/api/notebook/cells', `{"cell":{"type":"narrative","text":${nestedObjects(10_000)}}}`));
    expect(storedState(server.dataDir)).to.deep.equal(before);
  });

  it('answers 400 for a body of nested arrays at the size limit, to a viewer operation', async () => {
    const text = nestedArraysAtLimit();
    expect(Buffer.byteLength(text)).to.equal(BODY_LIMIT_BYTES);
    expectTooDeep(await post(server.url, '/api/probe-builder/validate', text));
    // the server still answers at once
    expect((await call(server.url, '/health/live')).status).to.equal(200);
  });

  it(`answers 400 for more than ${MAX_JSON_VALUES} values at any depth, and accepts that many`, async () => {
    // the body, its tenant, entity, name, params and params.p: 6; each [0]: 2
    const items = (pairs: number, extra: string): string => Array.from({ length: pairs }, () => '[0]').join(',') + extra;
    const pairs = (MAX_JSON_VALUES - 6) / 2;
    const within = await post(server.url, '/api/views', view(`{"p":[${items(pairs, '')}]}`));
    expect(within.status, within.text.slice(0, 300)).to.equal(200);
    const before = storedState(server.dataDir);
    expectTooMany(await post(server.url, '/api/views', view(`{"p":[${items(pairs, ',true')}]}`)));
    expectTooMany(await post(server.url, '/api/views', view(`{"p":[${items(pairs, ',"x"')}]}`)));
    const shallowAtLimit = `{"yaml":"x","pad":[${Array.from({ length: (BODY_LIMIT_BYTES - 40) / 6 }, () => '[[0]]').join(',')}]}`;
    expectTooMany(await post(server.url, '/api/probe-builder/validate', shallowAtLimit));
    const numbersAtLimit = `[${Array.from({ length: BODY_LIMIT_BYTES / 2 - 1 }, () => '0').join(',')}]`;
    expectTooMany(await post(server.url, '/api/views', numbersAtLimit));
    expect(storedState(server.dataDir)).to.deep.equal(before);
  });

  it('answers 400 as soon as the part of a body that passes a limit arrives, reads the rest, and keeps the connection', async () => {
    const before = storedState(server.dataDir);
    const { hostname, port, host } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const body = Buffer.from(view(nestedObjects(BODY_LIMIT_BYTES / 8)).padEnd(BODY_LIMIT_BYTES, ' '));
    socket.write(`POST /api/views HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body.subarray(0, 64 * 1024));
    // the answer comes while 15/16 of the body are still to be sent
    const answered = (): boolean => {
      const head = received.indexOf('\r\n\r\n');
      const length = /\r\nContent-Length: (\d+)\r\n/i.exec(received.slice(0, head))?.[1];
      return head >= 0 && length !== undefined && received.length - head - 4 >= Number(length);
    };
    await until(answered, { what: 'the answer to the first 64 KiB of a body nested too deep' });
    expect(received).to.match(/^HTTP\/1\.1 400 [^]*\r\nConnection: keep-alive\r\n/i);
    expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)).errors).to.deep.equal([{ in: 'body', name: '', message: `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` }]);
    socket.write(body.subarray(64 * 1024));
    socket.write(`GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    await closed;
    expect(received.split(/(?=HTTP\/1\.1 \d{3} )/).map((answer) => answer.slice(0, 12))).to.deep.equal(['HTTP/1.1 400', 'HTTP/1.1 200']);
    expect(storedState(server.dataDir)).to.deep.equal(before);
  });

  it('judges a compressed body as it is inflated', async () => {
    const gzipped = (text: string) => call(server.url, '/api/views', { method: 'POST', body: zlib.gzipSync(text), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    const saved = await gzipped(view('{"a":1}'));
    expect(saved.status, saved.text.slice(0, 300)).to.equal(200);
    expectTooDeep(await gzipped(view(nestedObjects(MAX_JSON_DEPTH - 1))));
    expectProblem(await gzipped(view(`"${'x'.repeat(BODY_LIMIT_BYTES)}"`)), 413);
  });

  it('counts brackets in strings as text, not nesting', async () => {
    const name = `${'[{'.repeat(100)} \\" ${']}'.repeat(100)}`;
    const res = await post(server.url, '/api/views', `{"tenant":"kantonsspital","entity":"cost_centres","name":"${name.slice(0, 150)}","params":{"q":"${'['.repeat(1000)}"}}`);
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
  });

  it('still refuses a __proto__ member and malformed JSON', async () => {
    expectProblem(await post(server.url, '/api/refresh', '{"scope":"all","__proto__":{"polluted":true}}'), 400);
    expectProblem(await post(server.url, '/api/refresh', '{"scope":'), 400);
  });

  it('is declared in the contract and in docs/errors.md with the limit the server applies', () => {
    const contract = fs.readFileSync('openapi.yaml', 'utf8');
    expect(contract).to.include(`deeper than ${MAX_JSON_DEPTH} levels`);
    expect(contract).to.include(`at most ${MAX_JSON_DEPTH} levels deep`);
    expect(contract).to.include(`more than ${MAX_JSON_VALUES} values`);
    expect(contract).to.include(`at most ${MAX_JSON_VALUES} values`);
    const errors = fs.readFileSync('docs/errors.md', 'utf8');
    expect(errors).to.include(`deeper than **${MAX_JSON_DEPTH}** levels`);
    expect(errors).to.include(`more than **${MAX_JSON_VALUES}** values`);
  });
});
