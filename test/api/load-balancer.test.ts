import { expect } from 'chai';
import { startDeskCluster, type DeskCluster, type Instance } from '../helpers/balancer-cluster.js';
import { loggedSince, loadUntil, mark, runLoad, servedSince, TENANTLESS, tenantReads, untilBalancedOver, type LoadResult } from '../helpers/balancer-load.js';
import { startBalancer, type Balancer, type BalancerKind } from '../helpers/balancers.js';
import { until } from '../helpers/until.js';

// Debian's HAProxy and nginx running the configurations docs/deployment.md includes (docs/deployment/haproxy.cfg,
// nginx.conf; only the addresses are changed) in front of three store-mode instances of the built server, each
// cache bound at 12 MiB for 30 tenants of 0.7 MiB (21 MiB, so one cache holds about half of them). Reads name
// their tenant as the contract does: in the path, the first path segment or `?tenant=`, as a slug or a composite ID.

const TENANTS = 30;
const CLIENTS = 8;
/** Longer than HAProxy's checks take to mark an instance down (inter 2 s × fall 2) plus a margin. */
const SHUTDOWN_DELAY_MS = 6000;

/** The instance that served each tenant, when every tenant was served by exactly one. */
function homes(served: Map<string, Set<string>>, tenants: readonly string[]): Map<string, string> {
  const home = new Map<string, string>();
  for (const tenant of tenants) {
    const slug = tenant.split('.')[1]!;
    const by = [...(served.get(slug) ?? [])];
    expect(by, `instances that served ${slug}`).to.have.length(1);
    home.set(slug, by[0]!);
  }
  return home;
}

const summary = (result: LoadResult): string =>
  `${result.requests} requests, ${result.failed.length} failed${result.failed.length > 0 ? ` (${JSON.stringify(result.failed.slice(0, 3))})` : ''}`;

describe('tenant affinity behind a real load balancer, configured as docs/deployment.md shows', function () {
  this.timeout(300_000);
  let cluster: DeskCluster;

  before(async () => {
    cluster = await startDeskCluster({ instances: 3, tenants: TENANTS, cacheMb: 12, env: { SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS) } });
  });
  after(async () => {
    await cluster?.close();
  });

  /** Reads every tenant once through `balancer`, from one client; the instance each tenant was served by. */
  async function onePass(balancer: Balancer): Promise<Map<string, string>> {
    const since = mark(cluster.instances);
    const result = await runLoad(balancer.url, tenantReads(cluster.tenants, 1, 7), 1);
    expect(result.failed, summary(result)).to.deep.equal([]);
    await until(() => loggedSince(cluster.instances, since) >= result.requests, { what: 'the request lines' });
    return homes(servedSince(cluster.instances, since), cluster.tenants);
  }

  /** Load until `event` has happened and every tenant was read after it; the load and what was served after it. */
  async function loadAround(balancer: Balancer, event: () => Promise<void>): Promise<{ result: LoadResult; after: Map<string, Set<string>> }> {
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const started = mark(cluster.instances);
    const load = loadUntil(balancer.url, tenantReads(cluster.tenants, 6, 3), CLIENTS, stopped);
    await until(() => loggedSince(cluster.instances, started) >= 2 * TENANTS, { deadline: 30_000, what: 'the load to run' });
    let after: number[] = [];
    const eventAt = Date.now();
    try {
      await event();
      after = mark(cluster.instances);
      await until(() => servedSince(cluster.instances, after).size >= TENANTS && loggedSince(cluster.instances, after) >= 2 * TENANTS, {
        deadline: 60_000,
        what: 'every tenant to be read after it',
      });
    } finally {
      stop();
    }
    const result = await load;
    // the last request lines (a killed instance's requests in flight are never logged)
    await until(() => loggedSince(cluster.instances, started) >= result.requests - result.failed.length - CLIENTS, { what: 'the request lines' });
    return { result, after: servedSince(cluster.instances, after, eventAt) };
  }

  /** Tenants evicted from the caches of all instances since they started. */
  async function evictions(): Promise<number> {
    const counts = await Promise.all(
      cluster.instances.map(async (instance) => {
        const line = (await (await fetch(`${instance.url}/metrics`)).text()).split('\n').find((l) => l.startsWith('store_cache_evictions_total '));
        return Number(line?.split(' ')[1] ?? NaN);
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  /** The instance with the most tenants (its loss moves the most). */
  const busiest = (home: Map<string, string>): Instance =>
    cluster.instances.reduce((a, b) => ([...home.values()].filter((n) => n === a.name).length >= [...home.values()].filter((n) => n === b.name).length ? a : b));

  /** Only `gone`'s tenants moved, and each to one instance; the others stayed at home. */
  function expectOnlyItsTenantsMoved(home: Map<string, string>, served: Map<string, Set<string>>, gone: Instance): void {
    for (const [slug, at] of home) {
      const by = [...(served.get(slug) ?? [])];
      if (at === gone.name) {
        expect(by, `instances that served ${slug}, a tenant of the lost instance`).to.not.include(gone.name);
        expect(by, `instances that served ${slug}`).to.have.length.within(1, 2);
      } else {
        expect(by, `instances that served ${slug}, which stays where it was`).to.deep.equal([at]);
      }
    }
  }

  for (const kind of ['haproxy', 'nginx'] as const satisfies readonly BalancerKind[]) {
    describe(kind, () => {
      let balancer: Balancer;
      let home: Map<string, string>;

      before(async () => {
        await cluster.restartCold();
        balancer = await startBalancer(kind, { ports: cluster.instances.map((instance) => instance.port) });
        await untilBalancedOver(balancer.url, cluster.instances);
      });
      after(async () => {
        await balancer?.close();
      });

      it('sends each tenant to one instance: about one download per tenant for six reads of each; tenantless reads go anywhere', async () => {
        cluster.store.resetTraffic();
        const evictedBefore = await evictions();
        const since = mark(cluster.instances);
        const result = await runLoad(balancer.url, [...tenantReads(cluster.tenants, 6), ...TENANTLESS, ...TENANTLESS, ...TENANTLESS], CLIENTS);
        expect(result.failed, summary(result)).to.deep.equal([]);
        expect(result.other).to.deep.equal([]);
        await until(() => loggedSince(cluster.instances, since) >= result.requests, { what: 'the request lines' });
        const served = servedSince(cluster.instances, since);
        home = homes(served, cluster.tenants);
        // every tenant downloaded once, by its one instance; a second download only after an eviction: the hash does
        // not deal tenants evenly, and nginx places them by the servers' addresses (here free ports, so the split
        // changes from run to run), so the busiest instance may hold more than its 12 MiB cache
        const evicted = (await evictions()) - evictedBefore;
        const split = [...cluster.instances].map((instance) => [...home.values()].filter((at) => at === instance.name).length).join('/');
        console.log(`      ${kind}: ${cluster.store.traffic.objectGets} downloads for ${TENANTS} tenants, split ${split}, ${evicted} evictions`);
        expect(cluster.store.traffic.objectGets, `downloads (split ${split})`).to.be.within(TENANTS, TENANTS + evicted);
        expect(new Set(home.values()).size, 'instances holding tenants').to.equal(3);
        expect(served.get('none')?.size ?? 0, 'instances that served tenantless reads').to.be.at.least(2);
      });

      it('without the hash (round robin), three reads of each tenant download it on most instances', async () => {
        await cluster.restartCold();
        const roundRobin = await startBalancer(kind, { ports: cluster.instances.map((instance) => instance.port), routing: 'roundrobin' });
        try {
          await untilBalancedOver(roundRobin.url, cluster.instances);
          cluster.store.resetTraffic();
          const result = await runLoad(roundRobin.url, tenantReads(cluster.tenants, 3), CLIENTS);
          expect(result.failed, summary(result)).to.deep.equal([]);
          expect(cluster.store.traffic.objectGets / TENANTS).to.be.at.least(2);
        } finally {
          await roundRobin.close();
        }
        // the same instances as before: the hash alone decides, whatever the caches hold
        await untilBalancedOver(balancer.url, cluster.instances);
        expect(await onePass(balancer)).to.deep.equal(home);
      });

      it(`drains an instance on SIGTERM with SHUTDOWN_DELAY_MS: ${kind === 'haproxy' ? 'no request fails' : 'only reads waiting for a download when the delay ends fail'}, only its tenants move; back, they return`, async () => {
        const leaving = busiest(home);
        const { result, after } = await loadAround(balancer, async () => {
          expect(await leaving.drain()).to.equal(0);
        });
        console.log(`      ${kind}, an instance drained under ${CLIENTS} clients: ${summary(result)}`);
        if (kind === 'haproxy') {
          expect(result.failed, summary(result)).to.deep.equal([]);
        } else {
          // nginx has no readiness check: the instance gets requests until its delay ends, and one that waits for a
          // tenant's download then is answered 503 (the drain stops downloads); nothing else fails
          expect(result.failed.length, summary(result)).to.be.at.most(CLIENTS);
          for (const failed of result.failed) {
            expect(failed.status, JSON.stringify(failed)).to.equal(503);
            expect(failed.body, JSON.stringify(failed)).to.include('could not be fetched into the cache');
          }
        }
        expectOnlyItsTenantsMoved(home, after, leaving);
        await leaving.start();
        const itsTenant = [...home].find(([, at]) => at === leaving.name)![0];
        await until(
          async () => {
            const since = mark(cluster.instances);
            await runLoad(balancer.url, tenantReads([`lb.${itsTenant}`], 1), 1);
            return servedSince(cluster.instances, since).get(itsTenant)?.has(leaving.name);
          },
          { deadline: 30_000, every: 200, what: `${kind} to send ${itsTenant} back to ${leaving.name}` },
        );
        await untilBalancedOver(balancer.url, cluster.instances);
        expect(await onePass(balancer)).to.deep.equal(home);
      });

      // A frozen instance (SIGSTOP here; a stuck process or a paused machine alike) refuses nothing: the kernel still
      // accepts connections, so a request sent to it waits for the balancer's server timeout (60 s as configured,
      // 5 s here). HAProxy's check times out too and takes it out; nginx takes it out after that timeout. A read
      // that timed out is sent to another instance, so the clients see a slow answer, not a failure.
      it('loses an instance to SIGSTOP under load: reads sent to it are answered by another after the server timeout; thawed, its tenants return', async () => {
        const frozen = busiest(home);
        const slow = await startBalancer(kind, { ports: cluster.instances.map((instance) => instance.port), serverTimeout: '5s' });
        try {
          await untilBalancedOver(slow.url, cluster.instances);
          let loadResult: LoadResult;
          try {
            const { result, after } = await loadAround(slow, async () => frozen.freeze(true));
            loadResult = result;
            console.log(`      ${kind}, an instance frozen under ${CLIENTS} clients: ${summary(result)}, ${result.latenciesMs.filter((ms) => ms >= 5000).length} waited 5 s or more`);
            expect(result.failed, summary(result)).to.deep.equal([]);
            expectOnlyItsTenantsMoved(home, after, frozen);
          } finally {
            frozen.freeze(false);
          }
          expect(loadResult.latenciesMs.filter((ms) => ms >= 5000).length, 'reads that waited for the timeout').to.be.at.least(1);
          const itsTenant = [...home].find(([, at]) => at === frozen.name)![0];
          await until(
            async () => {
              const since = mark(cluster.instances);
              await runLoad(slow.url, tenantReads([`lb.${itsTenant}`], 1), 1);
              return servedSince(cluster.instances, since).get(itsTenant)?.has(frozen.name);
            },
            { deadline: 30_000, every: 200, what: `${kind} to send ${itsTenant} back to ${frozen.name}` },
          );
        } finally {
          await slow.close();
        }
      });

      // Every instance shares the app database: when it does not answer, each instance's readiness is 503
      // (app-database-unreachable) while tenant reads keep working. A balancer that took them all out would answer
      // 503 to everything; HAProxy's check counts that reason as ready (nginx has no active check).
      if (kind === 'haproxy') {
        it('keeps the instances in while PostgreSQL is stopped: tenant reads are served', async () => {
          const since = mark(cluster.instances);
          await cluster.postgres.stop();
          try {
            // three checks of each instance answered 503 since the stop: HAProxy (fall 2) would have taken it out
            await until(
              () => cluster.instances.every((instance, i) => instance.served.slice(since[i]).filter((r) => r.path === '/health/ready' && r.status === 503).length >= 3),
              { deadline: 30_000, what: 'three failed readiness checks of each instance' },
            );
            const result = await runLoad(balancer.url, tenantReads(cluster.tenants, 1, 5), CLIENTS);
            expect(result.failed, summary(result)).to.deep.equal([]);
            expect(result.other).to.deep.equal([]);
          } finally {
            await cluster.postgres.start();
          }
          await until(async () => (await Promise.all(cluster.instances.map(async (instance) => (await fetch(`${instance.url}/health/ready`)).status))).every((status) => status === 200), {
            deadline: 30_000,
            what: 'every instance ready again',
          });
        });
      }

      it('loses an instance to SIGKILL under load: at most the requests in flight fail, only its tenants move; back, they return', async () => {
        const lost = busiest(home);
        const { result, after } = await loadAround(balancer, () => lost.kill());
        console.log(`      ${kind}, an instance killed under ${CLIENTS} clients: ${summary(result)}`);
        expect(result.failed.length, summary(result)).to.be.at.most(CLIENTS);
        expectOnlyItsTenantsMoved(home, after, lost);
        await lost.start();
        const itsTenant = [...home].find(([, at]) => at === lost.name)![0];
        await until(
          async () => {
            const since = mark(cluster.instances);
            await runLoad(balancer.url, tenantReads([`lb.${itsTenant}`], 1), 1);
            return servedSince(cluster.instances, since).get(itsTenant)?.has(lost.name);
          },
          { deadline: 30_000, every: 200, what: `${kind} to send ${itsTenant} back to ${lost.name}` },
        );
        await untilBalancedOver(balancer.url, cluster.instances);
        expect(await onePass(balancer)).to.deep.equal(home);
      });
    });
  }
});
