import { performance } from 'node:perf_hooks';
import type { Instance } from './balancer-cluster.js';
import { REPORT_KEY } from './store-cache.js';

// Reads of every tenant through a balancer, as the contract spells them (the tenant in the path, in the first path
// segment, in `?tenant=`; as a slug or a composite ID), and which instance served which tenant. Each read sends the
// slug it names as its `X-Request-Id`, which the instance logs beside the path (`clientRequestId`): the test's own
// record of the tenant, independent of the balancer's rules.

/** A request path and the slug of the tenant it names (null: none). */
export interface Read {
  readonly path: string;
  readonly tenant: string | null;
}

/** One request that failed: a 5xx, or no answer at all. */
export interface FailedRequest {
  readonly path: string;
  readonly status?: number;
  readonly error?: string;
  /** The answer's first 400 characters: tells a balancer's own 502/503 from an instance's problem. */
  readonly body?: string;
}

export interface LoadResult {
  readonly requests: number;
  readonly failed: FailedRequest[];
  /** Answers other than 200 that are not failures (4xx). */
  readonly other: { path: string; status: number }[];
  readonly latenciesMs: number[];
}

/** The reads of one tenant: a report (`/api/reports/{tenant}/…`), a summary (`?tenant=`), a taxonomy member (`/{tenant}/…`). */
export function readsOf(compositeId: string, round: number): Read {
  const slug = compositeId.split('.')[1]!;
  const ref = round % 2 === 0 ? compositeId : slug;
  const path =
    round % 3 === 0
      ? `/api/reports/${ref}/${REPORT_KEY}`
      : round % 3 === 1
        ? `/api/jumpbar?mode=summary&tenant=${ref}`
        : `/${ref}/taxonomies/cardinality/member?id=KST-4100`;
  return { path, tenant: slug };
}

/** Reads that name no tenant (the tenant list, the store's status): a balancer may send them anywhere. */
export const TENANTLESS: readonly Read[] = [
  { path: '/api/jumpbar?mode=tenants', tenant: null },
  { path: '/api/store-status', tenant: null },
];

/** Every tenant read `rounds` times, in an order shuffled by `seed` (the same seed, the same order). */
export function tenantReads(tenants: readonly string[], rounds: number, seed = 1): Read[] {
  const paths: Read[] = [];
  for (let round = 0; round < rounds; round++) for (const tenant of tenants) paths.push(readsOf(tenant, round));
  let state = seed;
  const next = (): number => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  for (let i = paths.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [paths[i], paths[j]] = [paths[j]!, paths[i]!];
  }
  return paths;
}

async function get(base: string, { path, tenant }: Read, result: LoadResult): Promise<void> {
  const started = performance.now();
  try {
    const res = await fetch(base + path, { headers: { 'x-request-id': tenant ?? 'none' } });
    const body = await res.text();
    result.latenciesMs.push(performance.now() - started);
    if (res.status >= 500) result.failed.push({ path, status: res.status, body: body.slice(0, 600) });
    else if (res.status !== 200) result.other.push({ path, status: res.status });
  } catch (err) {
    result.failed.push({ path, error: (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message });
  }
  (result as { requests: number }).requests += 1;
}

/** Sends `paths` through `base` from `clients` concurrent clients, each taking the next path when its answer came. */
export async function runLoad(base: string, paths: readonly Read[], clients: number): Promise<LoadResult> {
  const result: LoadResult = { requests: 0, failed: [], other: [], latenciesMs: [] };
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < paths.length) await get(base, paths[next++]!, result);
    }),
  );
  return result;
}

/** Sends `paths` over and over from `clients` clients until `stop` resolves; each client finishes its request in flight. */
export async function loadUntil(base: string, paths: readonly Read[], clients: number, stop: Promise<unknown>): Promise<LoadResult> {
  const result: LoadResult = { requests: 0, failed: [], other: [], latenciesMs: [] };
  let stopped = false;
  void stop.finally(() => (stopped = true));
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!stopped) await get(base, paths[next++ % paths.length]!, result);
    }),
  );
  return result;
}

/** Where each instance's request log stands now: give it to servedSince. */
export const mark = (instances: readonly Instance[]): number[] => instances.map((instance) => instance.served.length);

/**
 * The instances (by name) that served each tenant (by slug, from the reads' `X-Request-Id`) since `since`; `none` for
 * reads without one. `notBefore` (ms since the epoch) leaves out lines logged earlier that the test read only after
 * `since` was taken (an instance frozen or killed right after it wrote them).
 */
export function servedSince(instances: readonly Instance[], since: readonly number[], notBefore = 0): Map<string, Set<string>> {
  const byTenant = new Map<string, Set<string>>();
  instances.forEach((instance, i) => {
    for (const request of instance.served.slice(since[i])) {
      const slug = request.clientRequestId;
      if (slug === null || request.time < notBefore) continue;
      if (!byTenant.has(slug)) byTenant.set(slug, new Set());
      byTenant.get(slug)!.add(instance.name);
    }
  });
  return byTenant;
}

/** Requests with an `X-Request-Id` (the load's, not the balancer's health checks) the instances logged since `since`, together. */
export const loggedSince = (instances: readonly Instance[], since: readonly number[]): number =>
  instances.reduce((sum, instance, i) => sum + instance.served.slice(since[i]).filter((request) => request.clientRequestId !== null).length, 0);

/** The `p`-quantile (0–1) of `values`. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

/** Sends tenantless reads through `base` until every one of `instances` has served one: the balancer sees them all up. */
export async function untilBalancedOver(base: string, instances: readonly Instance[], deadline = 30_000): Promise<void> {
  const since = mark(instances);
  const giveUpAt = Date.now() + deadline;
  for (let i = 0; ; i++) {
    const missing = instances.filter((instance, n) => !instance.served.slice(since[n]).some((request) => request.clientRequestId === 'none'));
    if (missing.length === 0) return;
    if (Date.now() > giveUpAt) throw new Error(`the balancer sent no request to ${missing.map((instance) => instance.name).join(', ')} within ${deadline} ms`);
    await runLoad(base, [TENANTLESS[i % TENANTLESS.length]!], 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
