import { Writable } from 'node:stream';
import { expect } from 'chai';
import type Koa from 'koa';
import pino from 'pino';
import { until } from '../helpers/until.js';
import { Problem } from '../../src/common/problems.js';
import { problemAnswer } from '../../src/http/problem-answer.js';
import { RequestRecord } from '../../src/http/request-record.js';
import { auditTrail, requestLog } from '../../src/http/request-outcome.js';
import type { Logger } from '../../src/logger.js';
import type { Metrics } from '../../src/metrics/metrics.js';

interface Line {
  level: number;
  msg: string;
  [key: string]: unknown;
}

const WARN = 40;
const ERROR = 50;
const INFO = 30;

/** A logger into `lines`, a record on it, and a request context whose client has closed its connection. */
function leftRequest(operation: unknown = null): { lines: Line[]; log: Logger; record: RequestRecord; ctx: Koa.Context } {
  const lines: Line[] = [];
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk)) as Line), done()) }));
  const record = new RequestRecord(log, operation as never, '127.0.0.1', null, null, () => ({ tenant: null, ids: {} }) as never);
  const headers: Record<string, string> = {};
  const ctx = {
    method: 'GET',
    path: '/api/reports/a.b/x',
    status: 200,
    body: undefined as unknown,
    res: { writableFinished: false },
    req: { socket: { destroyed: true } },
    set: (name: string, value: string) => (headers[name] = value),
  } as unknown as Koa.Context;
  return { lines, log, record, ctx };
}

const answer = problemAnswer({ reasons: () => [] });
const metrics = { observeRequest: () => undefined } as unknown as Metrics;

describe('logging a request whose client has gone', () => {
  it('logs the problem raised because the client left at info, the request line too', () => {
    const { lines, log, record, ctx } = leftRequest();
    answer(ctx, record, new Problem('tenant-unavailable', 'the client closed the request while tenant "a.b" was not in the cache', { retryAfterSeconds: 5, clientLeft: true }));
    requestLog(log, metrics)(ctx, record);
    expect(ctx.status).to.equal(503);
    expect(lines.map((l) => [l.level, l.msg, l['clientLeft']])).to.deep.equal([
      [INFO, 'request abandoned by its client', true],
      [INFO, 'request', true],
    ]);
  });

  it('still logs a failure of the server (5xx) as an error and a refusal (4xx) as a warning when the client has gone meanwhile', () => {
    const failed = leftRequest();
    answer(failed.ctx, failed.record, new Problem('tenant-unavailable', 'tenant "a.b" could not be fetched into the cache: the object store could not be reached', { retryAfterSeconds: 5 }));
    requestLog(failed.log, metrics)(failed.ctx, failed.record);
    expect(failed.lines.map((l) => [l.level, l.msg, l['clientLeft']])).to.deep.equal([
      [ERROR, 'request failed', true],
      [ERROR, 'request', true],
    ]);
    const refused = leftRequest();
    answer(refused.ctx, refused.record, new Problem('too-many-requests', 'too many tenant fetches', { retryAfterSeconds: 30 }));
    requestLog(refused.log, metrics)(refused.ctx, refused.record);
    expect(refused.lines.map((l) => [l.level, l.msg, l['clientLeft']])).to.deep.equal([
      [WARN, 'request rejected', true],
      [WARN, 'request', true],
    ]);
  });

  it('says in the audit line of an audited request that its client had gone', () => {
    const { lines, log, record, ctx } = leftRequest({ operationId: 'exportDimension', rule: { audited: true } });
    answer(ctx, record, new Problem('tenant-unavailable', 'the client closed the request while tenant "a.b" was not in the cache', { retryAfterSeconds: 5, clientLeft: true }));
    auditTrail(log, false)(ctx, record);
    const audit = lines.find((l) => l.msg === 'audit');
    expect(audit).to.deep.include({ operationId: 'exportDimension', outcome: 'failed', status: 503, clientLeft: true });
  });
});

describe('the signal of a client gone', () => {
  it('is aborted at once for a response whose connection closed before it was asked for, and when it closes later', async () => {
    const { clientGoneSignal } = await import('../../src/http/problem-answer.js');
    const http = await import('node:http');
    const seen: Array<Promise<boolean>> = [];
    const server = http.createServer((req, res) => {
      seen.push(
        new Promise((resolve) => {
          if (req.url === '/early') {
            // asked for after the client has gone (it left while the request was authenticated, validated, limited)
            res.once('close', () => {
              const gone = clientGoneSignal(res);
              resolve(gone.signal.aborted);
              gone.dispose();
            });
          } else {
            const gone = clientGoneSignal(res);
            gone.signal.addEventListener('abort', () => resolve(true));
            res.once('close', () => setImmediate(() => resolve(gone.signal.aborted)));
          }
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('node:net').AddressInfo;
    try {
      for (const path of ['/early', '/late']) {
        const req = http.get({ host: '127.0.0.1', port, path });
        req.on('error', () => undefined);
        await until(() => seen.length > (path === '/early' ? 0 : 1), { what: 'the request at the server' });
        req.destroy();
      }
      expect(await Promise.all(seen)).to.deep.equal([true, true]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
