// Tenant affinity behind the real load balancers, with the configurations docs/deployment.md includes
// (docs/deployment/haproxy.cfg, nginx.conf; addresses changed only, see test/helpers/balancers.ts): three store-mode
// instances of the built server on one PostgreSQL (embedded) and one s3rver, 30 tenants of 0.7 MB, each cache bound
// at 12 MiB (about half the working set), 8 clients reading every tenant six times (a report, a summary, a taxonomy
// member; slug and composite ID), on instances restarted with empty caches before each setting. Side by side in one
// run: each balancer hashing the tenant as configured, HAProxy with `hash-balance-factor 150` added, and each with
// its hashing line swapped for round robin. Per setting: object downloads per tenant (s3rver's GETs), cache bytes
// per instance after the load (`store_cache_bytes{kind="used"}`), cold first requests (reads that waited for a
// fetch, `store_cache_misses_total`) and their mean fetch time, the load's p50 and p99, failed requests.
// `npm run bench -- balancer`; the table goes to docs/deployment.md (section `balancer`).
import path from 'node:path';
import { startDeskCluster, type DeskCluster, type Instance } from '../test/helpers/balancer-cluster.js';
import { quantile, runLoad, tenantReads, untilBalancedOver } from '../test/helpers/balancer-load.js';
import { startBalancer, type BalancerKind, type BalancerOptions } from '../test/helpers/balancers.js';
import { writeBenchSection } from './report.js';
import { fmt } from './stats.js';

const TENANTS = 30;
const CACHE_MB = 12;
const CLIENTS = 8;
const ROUNDS = 6;
const DEPLOYMENT_PAGE = path.join(import.meta.dirname, '..', 'docs', 'deployment.md');

interface Setting {
  readonly name: string;
  readonly kind: BalancerKind;
  readonly options: Omit<BalancerOptions, 'ports'>;
}

const SETTINGS: readonly Setting[] = [
  { name: 'HAProxy, `haproxy.cfg` as shown', kind: 'haproxy', options: {} },
  { name: 'HAProxy, with `hash-balance-factor 150`', kind: 'haproxy', options: { balanceFactor: 150 } },
  { name: 'HAProxy, round robin', kind: 'haproxy', options: { routing: 'roundrobin' } },
  { name: 'nginx, `nginx.conf` as shown', kind: 'nginx', options: {} },
  { name: 'nginx, round robin', kind: 'nginx', options: { routing: 'roundrobin' } },
];

interface Figures {
  downloadsPerTenant: number;
  cacheMb: number[];
  coldRequests: number;
  meanFetchMs: number;
  p50: number;
  p99: number;
  failed: number;
  requests: number;
}

/** The value of the series `name` (exactly as written, labels included) in the instance's /metrics. */
async function metric(instance: Instance, name: string): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.slice(name.length + 1));
}

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
const each = (cluster: DeskCluster, name: string): Promise<number[]> => Promise.all(cluster.instances.map((instance) => metric(instance, name)));

async function measure(cluster: DeskCluster, setting: Setting): Promise<Figures> {
  await cluster.restartCold();
  const balancer = await startBalancer(setting.kind, { ...setting.options, ports: cluster.instances.map((instance) => instance.port) });
  try {
    await untilBalancedOver(balancer.url, cluster.instances);
    cluster.store.resetTraffic();
    const result = await runLoad(balancer.url, tenantReads(cluster.tenants, ROUNDS), CLIENTS);
    const fetchSeconds = sum(await each(cluster, 'store_cache_fetch_duration_seconds_sum'));
    const fetches = sum(await each(cluster, 'store_cache_fetch_duration_seconds_count'));
    return {
      downloadsPerTenant: cluster.store.traffic.objectGets / TENANTS,
      cacheMb: (await each(cluster, 'store_cache_bytes{kind="used"}')).map((bytes) => bytes / 1024 / 1024),
      coldRequests: sum(await each(cluster, 'store_cache_misses_total')),
      meanFetchMs: fetches === 0 ? NaN : (fetchSeconds / fetches) * 1000,
      p50: quantile(result.latenciesMs, 0.5),
      p99: quantile(result.latenciesMs, 0.99),
      failed: result.failed.length,
      requests: result.requests,
    };
  } finally {
    await balancer.close();
  }
}

export async function run(): Promise<void> {
  const cluster = await startDeskCluster({ instances: 3, tenants: TENANTS, cacheMb: CACHE_MB });
  const rows: string[] = [];
  const figures = new Map<string, Figures>();
  try {
    for (const setting of SETTINGS) {
      const f = await measure(cluster, setting);
      figures.set(setting.name, f);
      const row = `| ${setting.name} | ${fmt(f.downloadsPerTenant, 2)} | ${f.cacheMb.map((mb) => fmt(mb)).join(' / ')} | ${f.coldRequests} of ${f.requests} (fetch ${fmt(f.meanFetchMs, 0)} ms) | ${fmt(f.p50)} ms | ${fmt(f.p99)} ms | ${f.failed} |`;
      console.log(row);
      rows.push(row);
    }
  } finally {
    await cluster.close();
  }
  const ratio = (a: string, b: string): string => fmt(figures.get(b)!.downloadsPerTenant / figures.get(a)!.downloadsPerTenant, 1);
  const markdown = [
    '| setting | downloads per tenant | cache per instance, MiB | reads that waited for a fetch (mean fetch) | p50 | p99 | failed |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Round robin downloads ${ratio(SETTINGS[0]!.name, SETTINGS[2]!.name)} times as much as HAProxy's hash (nginx: ${ratio(SETTINGS[3]!.name, SETTINGS[4]!.name)} times).`,
  ].join('\n');
  console.log(markdown);
  writeBenchSection('balancer', markdown, 'npm run bench -- balancer', DEPLOYMENT_PAGE);
}
