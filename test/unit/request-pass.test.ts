import { expect } from 'chai';
import Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import querystring from 'node:querystring';
import { Problem } from '../../src/common/problems.js';
import { parseQueryOnce } from '../../src/http/request-target.js';
import { requestPass, type RequestSteps } from '../../src/http/request-pass.js';
import type { RequestRecord } from '../../src/http/request-record.js';

/** What one request did, as the steps saw it. */
interface Seen {
  served: number;
  errors: string[];
  /** The status each end step saw, in the order they ran. */
  ended: number[];
  guards: string[];
}

/** A Koa app whose one middleware is a request pass over `steps`, noting in `seen` what happened. */
async function serve(steps: Partial<RequestSteps>, seen: Seen = { served: 0, errors: [], ended: [], guards: [] }): Promise<{ url: string; seen: Seen; close: () => Promise<void> }> {
  const app = new Koa();
  app.silent = true;
  parseQueryOnce(app);
  app.use(
    requestPass({
      begin: () => ({ id: 'r1' }) as unknown as RequestRecord,
      guards: [],
      serve: async (ctx) => {
        seen.served += 1;
        ctx.body = { query: ctx.query };
      },
      answerError: (ctx, _record, err) => {
        seen.errors.push(err instanceof Problem ? err.code : (err as Error).message);
        ctx.status = err instanceof Problem ? err.status : 500;
        ctx.body = { error: true };
      },
      compress: () => undefined,
      end: [(ctx) => void seen.ended.push(ctx.status), (ctx) => void seen.ended.push(ctx.status)],
      ...steps,
    }),
  );
  // room for a request line of 4,000 parameters
  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('the request pass', () => {
  it('serves a request every guard lets through once, and writes its end once each, from the status answered', async () => {
    const seen: Seen = { served: 0, errors: [], ended: [], guards: [] };
    const s = await serve({ guards: [() => void seen.guards.push('host'), () => void seen.guards.push('cors')] }, seen);
    try {
      const res = await fetch(`${s.url}/x?a=1`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ query: { a: '1' } });
      expect(seen).to.deep.equal({ served: 1, errors: [], ended: [200, 200], guards: ['host', 'cors'] });
    } finally {
      await s.close();
    }
  });

  it('does not serve a request a guard refused, asks no later guard, and answers the refusal once', async () => {
    const seen: Seen = { served: 0, errors: [], ended: [], guards: [] };
    const refuse = (): never => {
      throw new Problem('forbidden', 'not from this site');
    };
    const s = await serve({ guards: [refuse, () => void seen.guards.push('later')] }, seen);
    try {
      const res = await fetch(`${s.url}/x`);
      expect(res.status).to.equal(403);
      expect(seen).to.deep.equal({ served: 0, errors: ['forbidden'], ended: [403, 403], guards: [] });
    } finally {
      await s.close();
    }
  });

  it('does not serve a request a guard answered itself (a preflight)', async () => {
    const seen: Seen = { served: 0, errors: [], ended: [], guards: [] };
    const preflight = (ctx: Koa.Context): boolean => {
      ctx.status = 204;
      return true;
    };
    const s = await serve({ guards: [preflight] }, seen);
    try {
      const res = await fetch(`${s.url}/x`, { method: 'OPTIONS' });
      expect(res.status).to.equal(204);
      expect(seen).to.deep.equal({ served: 0, errors: [], ended: [204, 204], guards: [] });
    } finally {
      await s.close();
    }
  });

  it('answers an error of the operation and one of the compression, never with a stack trace', async () => {
    const s = await serve({
      serve: async () => {
        throw new Error('boom in the operation');
      },
      compress: () => Promise.reject(new Error('boom in the compression')),
    });
    try {
      const res = await fetch(`${s.url}/x`);
      expect(res.status).to.equal(500);
      expect(await res.text()).to.equal('{"error":true}');
      // the operation's error is answered; the compression of that answer fails and is answered in turn
      expect(s.seen.errors).to.deep.equal(['boom in the operation', 'boom in the compression']);
      expect(s.seen.ended).to.deep.equal([500, 500]);
    } finally {
      await s.close();
    }
  });
});

describe('the query of a request', () => {
  const parsed = async (query: string): Promise<unknown> => {
    const s = await serve({});
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
