import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Document } from 'openapi-backend';
import { EncodedJson } from '../../src/common/encoded-json.js';
import { Problem } from '../../src/common/problems.js';
import { serveContract } from '../helpers/contract-app.js';
import { call, expectProblem } from '../helpers/http.js';

const document = {
  openapi: '3.0.3',
  info: { title: 'answer test', version: '0.1.0' },
  paths: {
    '/thing': {
      get: {
        operationId: 'getThing',
        security: [],
        parameters: [
          {
            name: 'variant',
            in: 'query',
            required: true,
            schema: { type: 'string', enum: ['good', 'bad-body', 'bad-status', 'encoded', 'throw-declared', 'throw-undeclared', 'throw-bad-body'] },
          },
        ],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } }, additionalProperties: false } } },
          },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
    },
  },
  components: {
    responses: { NotFound: { description: 'not found', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } } },
    schemas: {
      Problem: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail'],
        properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string', maxLength: 40 }, instance: { type: 'string' }, requestId: { type: 'string' } },
        additionalProperties: false,
      },
    },
  },
} as unknown as Document;

/** Stands for any module below a handler (registry, unit of work, limits) that throws a problem. */
function lookUpThing(variant: string): never {
  if (variant === 'throw-declared') throw new Problem('not-found', 'no such thing');
  if (variant === 'throw-bad-body') throw new Problem('not-found', 'a detail longer than the forty characters the schema allows');
  throw new Problem('conflict', 'the thing is busy');
}

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
            ? { status: 200, body: new EncodedJson('{"n": 2}') }
            : input.query.variant.startsWith('throw-')
              ? lookUpThing(input.query.variant)
              : { status: 418, body: { n: 1 } },
  };
  const served = await serveContract(document, handlers, { log, responseValidation });
  return { ...served, lines };
}

describe('answers of operations (src/http/answer.ts, problem-answer.ts)', () => {
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

  it('sends a problem thrown below the handler when the operation declares its status', async () => {
    const s = await serve(true);
    try {
      const res = await call(s.url, '/thing?variant=throw-declared');
      expectProblem(res, 404);
      expect(res.body.detail).to.equal('no such thing');
    } finally {
      await s.close();
    }
  });

  it('turns a thrown problem whose status the operation does not declare into a logged 500, validation on or off', async () => {
    for (const responseValidation of [true, false]) {
      const s = await serve(responseValidation);
      try {
        const res = await call(s.url, '/thing?variant=throw-undeclared');
        expectProblem(res, 500);
        expect(res.text).not.to.include('busy');
        const logged = s.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'response breaks the contract');
        expect(logged).to.deep.include({ operationId: 'getThing', status: 409, reasons: ['status 409 is not declared'] });
      } finally {
        await s.close();
      }
    }
  });

  it('checks a thrown problem body against the declared schema under response validation only', async () => {
    const checked = await serve(true);
    try {
      expectProblem(await call(checked.url, '/thing?variant=throw-bad-body'), 500);
      const logged = checked.lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'response breaks the contract');
      expect(logged.reasons.join()).to.match(/detail must NOT have more than 40 characters/);
    } finally {
      await checked.close();
    }
    const unchecked = await serve(false);
    try {
      expectProblem(await call(unchecked.url, '/thing?variant=throw-bad-body'), 404);
    } finally {
      await unchecked.close();
    }
  });
});

describe('expectProblem', () => {
  const problem = (status: number) => ({
    status,
    headers: new Headers({ 'content-type': 'application/problem+json' }),
    body: { type: 'https://analytics-desk.example/problems/conflict', title: 'Conflict', status, detail: 'x' },
  });

  it('refuses a status the operation of the request does not declare', () => {
    expect(() => expectProblem({ ...problem(409), request: { method: 'GET', path: '/health' } }, 409)).to.throw(/getHealth .* does not declare a 409 problem/);
    expect(() => expectProblem({ ...problem(429), request: { method: 'GET', path: '/api/views' } }, 429)).to.throw(/listViews/);
  });

  it('accepts a declared status, the 500 of every operation and the answers of no route', () => {
    expectProblem({ ...problem(409), request: { method: 'POST', path: '/api/probe-builder/save' } }, 409);
    expectProblem({ ...problem(500), request: { method: 'GET', path: '/health' } }, 500);
    expectProblem({ ...problem(405), request: { method: 'PATCH', path: '/nowhere' } }, 405);
    expect(() => expectProblem({ ...problem(409), request: { method: 'GET', path: '/nowhere' } }, 409)).to.throw(/matches no operation/);
  });
});
