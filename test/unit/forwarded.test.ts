import { expect } from 'chai';
import Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type TrustProxy } from '../../src/config.js';
import { forwardedClientOf } from '../../src/http/forwarded.js';

/** What the middleware made of a request: the client address and the host it takes the request to be sent to. */
interface Seen {
  ip: string;
  host: string;
}

/** A Koa app answering the client and host it takes a request to be from (without TRUST_PROXY, `null`: the connection's); its URL and a closer. */
async function serve(trust: TrustProxy | null): Promise<{ see: (headers: Record<string, string>) => Promise<Seen>; close: () => Promise<void> }> {
  const app = new Koa();
  const forwarded = trust === null ? null : forwardedClientOf(trust);
  app.use((ctx) => {
    const client = forwarded?.(ctx.req) ?? null;
    ctx.body = { ip: client?.address ?? ctx.ip, host: client?.host ?? ctx.get('host') };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const see = (headers: Record<string, string>) =>
    new Promise<Seen>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/', headers: { host: `localhost:${port}`, ...headers } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve(JSON.parse(text) as Seen));
        })
        .on('error', reject);
    });
  return { see, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** TRUST_PROXY as read with sign-in on (without it, loopback entries and hop counts are refused at start). */
const withSignIn = (env: Record<string, string>) => loadConfig({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'http://127.0.0.1:1/realms/desk', OIDC_AUDIENCE: 'desk', ...env });
const trustOf = (value: string): TrustProxy => withSignIn({ TRUST_PROXY: value }).trustProxy!;

describe('client address and host behind trusted proxies (src/http/forwarded.ts)', () => {
  it('ignores X-Forwarded-For and X-Forwarded-Host without TRUST_PROXY', async () => {
    expect(loadConfig({}).trustProxy).to.equal(null);
    const app = await serve(null);
    try {
      const seen = await app.see({ 'x-forwarded-for': '203.0.113.7', 'x-forwarded-host': 'desk.example.org' });
      expect(seen.ip).to.match(/^(::ffff:)?127\.0\.0\.1$/);
      expect(seen.host).to.match(/^localhost:\d+$/);
    } finally {
      await app.close();
    }
  });

  it('with a hop count takes the entry that many proxies back, whatever a client wrote before it', async () => {
    const one = await serve(trustOf('1'));
    const two = await serve(trustOf('2'));
    try {
      expect((await one.see({ 'x-forwarded-for': '203.0.113.7' })).ip).to.equal('203.0.113.7');
      // a client writing its own X-Forwarded-For gets its forged entry to the left of the proxy's
      expect((await one.see({ 'x-forwarded-for': '198.51.100.1, 203.0.113.7' })).ip).to.equal('203.0.113.7');
      expect((await two.see({ 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.0.0.2' })).ip).to.equal('203.0.113.7');
      expect((await one.see({})).ip).to.match(/^(::ffff:)?127\.0\.0\.1$/);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('with addresses and ranges walks back while the hop is a listed proxy', async () => {
    const app = await serve(trustOf('loopback, 10.0.0.0/8'));
    const elsewhere = await serve(trustOf('192.0.2.10'));
    try {
      expect((await app.see({ 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.1.2.3' })).ip).to.equal('203.0.113.7');
      expect((await app.see({ 'x-forwarded-for': '10.9.9.9, 10.1.2.3' })).ip).to.equal('10.9.9.9');
      // the peer (loopback) is not a listed proxy: its headers are not believed
      const ignored = await elsewhere.see({ 'x-forwarded-for': '203.0.113.7', 'x-forwarded-host': 'desk.example.org' });
      expect(ignored.ip).to.match(/^(::ffff:)?127\.0\.0\.1$/);
      expect(ignored.host).to.match(/^localhost:\d+$/);
    } finally {
      await app.close();
      await elsewhere.close();
    }
  });

  it('takes the host the outermost trusted proxy forwarded, else the Host header', async () => {
    const one = await serve(trustOf('1'));
    const two = await serve(trustOf('2'));
    try {
      expect((await one.see({ 'x-forwarded-for': '203.0.113.7', 'x-forwarded-host': 'desk.example.org' })).host).to.equal('desk.example.org');
      expect((await one.see({ 'x-forwarded-for': '203.0.113.7', 'x-forwarded-host': 'forged.example, desk.example.org' })).host).to.equal('desk.example.org');
      expect((await two.see({ 'x-forwarded-for': '203.0.113.7, 10.0.0.2', 'x-forwarded-host': 'forged.example, desk.example.org, inner.lan' })).host).to.equal(
        'desk.example.org',
      );
      expect((await one.see({ 'x-forwarded-for': '203.0.113.7' })).host).to.match(/^localhost:\d+$/);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('keeps the last address it can read when a trusted hop forwarded something else, and walks a long header only as far as the hops it trusts', async () => {
    const app = await serve(trustOf('loopback, 10.0.0.0/8'));
    try {
      expect((await app.see({ 'x-forwarded-for': 'unknown, 10.1.2.3' })).ip).to.equal('10.1.2.3');
      const long = Array.from({ length: 1500 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(',');
      expect(long.length).to.be.greaterThan(14_000);
      const seen = await app.see({ 'x-forwarded-for': long });
      // only the last MAX_PROXY_HOPS + 1 entries are walked: the one 33 from the end is taken as the client, though
      // every entry is a trusted address
      expect(seen.ip).to.equal(long.split(',').at(-33));
    } finally {
      await app.close();
    }
  });
});

describe('TRUST_PROXY, SHUTDOWN_DELAY_MS, SHUTDOWN_TIMEOUT_MS and EXPORT_LEASE_MS (loadConfig)', () => {
  it('reads a hop count or a list of addresses, ranges and names', () => {
    expect(withSignIn({ TRUST_PROXY: '2' }).trustProxy).to.deep.equal({ kind: 'hops', hops: 2 });
    expect(withSignIn({ TRUST_PROXY: ' loopback, 10.0.0.0/8 ,fd00::/8' }).trustProxy).to.deep.equal({ kind: 'addresses', addresses: ['loopback', '10.0.0.0/8', 'fd00::/8'] });
  });

  it('refuses a hop count out of range and an entry that is no address, in one line each', () => {
    expect(() => loadConfig({ TRUST_PROXY: '0' })).to.throw(/TRUST_PROXY must be a hop count from 1 to 32 .*got "0"/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/8, proxy.lan' })).to.throw(/TRUST_PROXY entries must be IP addresses, CIDR ranges .*got "proxy\.lan"/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).to.throw(/got "10\.0\.0\.0\/33"/);
  });

  it('defaults to no shutdown delay, 10 s to drain and 30 s export leases, and checks their ranges', () => {
    const config = loadConfig({});
    expect(config.shutdown).to.deep.equal({ delayMs: 0, timeoutMs: 10_000 });
    expect(config.limits.exportLeaseMs).to.equal(30_000);
    expect(loadConfig({ SHUTDOWN_DELAY_MS: '15000', SHUTDOWN_TIMEOUT_MS: '60000', EXPORT_LEASE_MS: '5000' })).to.deep.include({
      shutdown: { delayMs: 15_000, timeoutMs: 60_000 },
    });
    let message = '';
    try {
      loadConfig({ SHUTDOWN_DELAY_MS: '-1', SHUTDOWN_TIMEOUT_MS: '10s', EXPORT_LEASE_MS: '999' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).to.include('SHUTDOWN_DELAY_MS must be an integer from 0 to 600000 (got "-1")');
    expect(message).to.include('SHUTDOWN_TIMEOUT_MS must be an integer from 0 to 600000 (got "10s")');
    expect(message).to.include('EXPORT_LEASE_MS must be an integer from 1000 to 600000 (got "999")');
  });
});
