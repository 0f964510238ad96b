import { expect } from 'chai';
import Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import querystring from 'node:querystring';
import { HttpProblem } from '../../src/http/errors.js';
import { parseQueryOnce } from '../../src/http/query.js';
import { requestPass, type RequestSteps } from '../../src/http/request-pass.js';

/** A Koa app whose one middleware is a request pass over `steps`, each step noting its name in `seen`. */
async function serve(steps: Partial<RequestSteps>, seen: string[]): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.silent = true;
  parseQueryOnce(app);
  app.use(
    requestPass({
      context: {
        begin: (ctx) => {
          seen.push('begin');
          ctx.state = { requestId: 'r1' };
        },
        end: (ctx) => seen.push(`end ${ctx.status}`),
      },
      admissions: [],
      serve: async (ctx) => {
        seen.push('serve');
        ctx.body = { query: ctx.query };
      },
      answerError: (ctx, err) => {
        seen.push(`error ${err instanceof HttpProblem ? err.code : 'other'}`);
        ctx.status = err instanceof HttpProblem ? err.status : 500;
        ctx.body = { error: true };
      },
      ...steps,
    }),
  );
  // room for a request line of 4,000 parameters
  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('the request pass', () => {
  it('takes a request through its admissions in order, then the operation, compression and the audit, and ends it once', async () => {
    const seen: string[] = [];
    const s = await serve(
      {
        admissions: [() => void seen.push('first'), () => void seen.push('second')],
        compress: () => void seen.push('compress'),
        audit: () => void seen.push('audit'),
        span: () => () => void seen.push('span'),
      },
      seen,
    );
    try {
      const res = await fetch(`${s.url}/x`);
      expect(res.status).to.equal(200);
      expect(seen).to.deep.equal(['begin', 'first', 'second', 'serve', 'compress', 'audit', 'span', 'end 200']);
    } finally {
      await s.close();
    }
  });

  it('does not serve a request an admission refused, and answers the refusal once', async () => {
    const seen: string[] = [];
    const s = await serve(
      {
        admissions: [
          () => {
            throw new HttpProblem('forbidden', 'not from this site');
          },
          () => void seen.push('never'),
        ],
        audit: () => void seen.push('audit'),
      },
      seen,
    );
    try {
      const res = await fetch(`${s.url}/x`);
      expect(res.status).to.equal(403);
      expect(seen).to.deep.equal(['begin', 'error forbidden', 'audit', 'end 403']);
    } finally {
      await s.close();
    }
  });

  it('does not serve a request an admission answered itself (a preflight)', async () => {
    const seen: string[] = [];
    const s = await serve(
      {
        admissions: [
          (ctx) => {
            ctx.status = 204;
            return true;
          },
        ],
      },
      seen,
    );
    try {
      const res = await fetch(`${s.url}/x`, { method: 'OPTIONS' });
      expect(res.status).to.equal(204);
      expect(seen).to.deep.equal(['begin', 'end 204']);
    } finally {
      await s.close();
    }
  });

  it('answers an error of the operation and one of the compression as problems, never with a stack trace', async () => {
    const seen: string[] = [];
    const s = await serve(
      {
        serve: async () => {
          throw new Error('boom in the operation');
        },
        compress: () => Promise.reject(new Error('boom in the compression')),
      },
      seen,
    );
    try {
      const res = await fetch(`${s.url}/x`);
      expect(res.status).to.equal(500);
      expect(await res.text()).to.equal('{"error":true}');
      // the operation's error is answered; the compression of that answer fails and is answered in turn
      expect(seen).to.deep.equal(['begin', 'error other', 'error other', 'end 500']);
    } finally {
      await s.close();
    }
  });
});

describe('the query of a request', () => {
  const parsed = async (query: string): Promise<unknown> => {
    const s = await serve({}, []);
    try {
      return ((await (await fetch(`${s.url}/x?${query}`)).json()) as { query: unknown }).query;
    } finally {
      await s.close();
    }
  };

  it('decodes as URLSearchParams does: plus as space, a malformed escape kept, invalid UTF-8 as U+FFFD, repeated names as arrays', async () => {
    const query = 'a=1&a=2&b&e=a+b&c=%zz&d=%ff&f=%C3%28&g=%E2%82%AC&=x&constructor=2&__proto__=3';
    const params = new URLSearchParams(query);
    const expected = Object.fromEntries(
      [...new Set(params.keys())].map((name) => {
        const values = params.getAll(name);
        return [name, values.length === 1 ? values[0]! : values];
      }),
    );
    expect(Object.keys(expected)).to.have.length(10);
    expect(await parsed(query)).to.deep.equal(expected);
  });

  it('keeps every one of 4,000 distinct names (no bound on their number)', async () => {
    const names = Array.from({ length: 4000 }, (_, i) => `k${i.toString(36)}`);
    const query = querystring.stringify(Object.fromEntries(names.map((name, i) => [name, String(i)])));
    const got = (await parsed(query)) as Record<string, string>;
    expect(Object.keys(got)).to.have.length(4000);
    expect(got['k0']).to.equal('0');
    expect(got[names[3999]!]).to.equal('3999');
  });
});
