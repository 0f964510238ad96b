import { expect } from 'chai';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Document } from 'openapi-backend';
import { CostLimits } from '../../src/auth/cost-limits.js';
import type { Deps } from '../../src/deps.js';
import { contractMiddleware, createContractBackend } from '../../src/http/adapter.js';
import { EncodedJson } from '../../src/http/encoded-json.js';
import type { HandlerMap } from '../../src/http/contract.js';
import { problemMiddleware } from '../../src/http/problem.js';
import { requestContext } from '../../src/http/request-context.js';
import { call, expectProblem } from '../helpers/http.js';

const document = {
  openapi: '3.0.3',
  info: { title: 'adapter test', version: '0.1.0' },
  paths: {
    '/thing': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'variant', in: 'query', required: true, schema: { type: 'string', enum: ['good', 'bad-body', 'bad-status', 'encoded'] } }],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } }, additionalProperties: false } } },
          },
        },
      },
    },
  },
} as unknown as Document;

async function serve(responseValidation: boolean) {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
  const handlers = {
    getThing: async (input: { query: { variant: string } }) =>
      input.query.variant === 'good'
        ? { status: 200, body: { n: 1 } }
        : input.query.variant === 'bad-body'
          ? { status: 200, body: { n: 'one', extra: true } }
          : input.query.variant === 'encoded'
            ? { status: 200, body: new EncodedJson(Buffer.from('{"n": 2}')) }
            : { status: 418, body: { n: 1 } },
  } as unknown as HandlerMap;
  const api = await createContractBackend(document);
  const app = new Koa();
  app.use(requestContext(log, 'v0.1.0 2026-11-21 00:00'));
  app.use(problemMiddleware());
  const deps = { config: { responseValidation }, contract: { document }, tokens: null, limits: new CostLimits({ narrativesPerMinute: 0, exportsPerCaller: 0, signalToolsPerMinute: 0 }) };
  app.use(contractMiddleware(api, handlers, deps as unknown as Deps));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, lines, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('contract adapter', () => {
  it('sends a response that keeps the contract', async () => {
    const s = await serve(true);
    try {
      const res = await call(s.url, '/thing?variant=good');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ n: 1 });
    } finally {
      await s.close();
    }
  });

  it('sends an EncodedJson body as its bytes, with the declared media type and no second check', async () => {
    const s = await serve(true);
    try {
      const res = await call(s.url, '/thing?variant=encoded');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json');
      expect(res.text).to.equal('{"n": 2}');
    } finally {
      await s.close();
    }
  });

  it('turns a body that breaks the contract into a logged 500 problem, never sending it', async () => {
    const s = await serve(true);
    try {
      const res = await call(s.url, '/thing?variant=bad-body');
      expectProblem(res, 500);
      expect(res.text).not.to.include('one');
      const logged = s.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'response breaks the contract');
      expect(logged).to.include({ operationId: 'getThing', status: 200 });
    } finally {
      await s.close();
    }
  });

  it('turns an undeclared status into a 500 problem even with validation off', async () => {
    const s = await serve(false);
    try {
      expectProblem(await call(s.url, '/thing?variant=bad-status'), 500);
      const unchecked = await call(s.url, '/thing?variant=bad-body');
      expect(unchecked.status).to.equal(200);
    } finally {
      await s.close();
    }
  });
});
