// The search, measured in one place: a tenant of generated search items, queries the server has not seen (cut from
// the tenant's own names), and the two loads of the search goals on a server whose index is built and whose names
// are in memory: closed loop at 50 connections (capacity) and open loop at 1,000 req/s (latency from the due time).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { generateDemo } from '../src/demo/generate.js';
import { closedLoop, type ClosedLoopResult } from './closed-loop.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { namesSettledOrQuiet, sidecarOf, waitFor, type BenchServer } from './server.js';

/** Realistic repeated queries (answered from the result cache after the first time), for searches beside other load. */
export const QUERIES = [
  'fallpauschale', 'cost', 'coût', 'implant', 'billing backlog', 'nursing', 'prognose', 'müller', 'overview 12', 'kostengewicht',
  'ward', 'q3 2026', 'stay', 'drug', 'notfall', 'rapport', 'séjour', 'outliers', 'anna', 'materialverbrauch', 'budget', 'trend 4',
];

/** The jumpbar search path of `q` on `tenant`. */
export const searchPath = (tenant: string, q: string): string => `/api/jumpbar?mode=search&tenant=${encodeURIComponent(tenant)}&q=${encodeURIComponent(q)}`;

/**
 * Distinct queries of 3-10 characters cut from the names of `kls`'s search items (deterministic): cycled, a query
 * comes back only after all the others, long after it left the 256-entry result cache, so every one runs the index.
 */
export function unseenQueries(kls: string, wanted: number): string[] {
  const db = new Database(kls, { readonly: true });
  const names = db.prepare('SELECT coalesce(name_de, name_en, name_fr) FROM search_items ORDER BY item_id').pluck().all() as (string | null)[];
  db.close();
  const queries = new Set<string>();
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; queries.size < wanted && i < names.length * 4; i++) {
    const name = names[Math.floor(next() * names.length)] ?? '';
    const length = 3 + Math.floor(next() * 8);
    const start = Math.floor(next() * Math.max(1, name.length - length));
    const query = name.slice(start, start + length).trim().toLowerCase();
    if (query.length >= 3) queries.add(query);
  }
  return [...queries];
}

/** A data folder with one demo tenant, `ost.kantonsspital`, of `items` generated search items. */
export interface SearchTenant {
  dir: string;
  kls: string;
  remove(): void;
}

/** Writes the search tenant, with `rows` materials (the demo's 500 by default). */
export function generateSearchTenant(items: number, rows?: number): SearchTenant {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-search-'));
  const started = performance.now();
  // the demo writes at least three tenants; the others go
  const demo = generateDemo({ out: dir, tenants: 3, searchItems: items, rows });
  for (const tenant of demo.tenants) if (tenant.compositeId !== 'ost.kantonsspital') fs.rmSync(path.dirname(tenant.file), { recursive: true, force: true });
  const materials = rows === undefined ? '' : ` and ${rows.toLocaleString('en-US')} materials`;
  console.log(`search data: one tenant of ${items.toLocaleString('en-US')} generated search items${materials} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return {
    dir,
    kls: path.join(dir, 'kls', 'ost', 'kantonsspital', 'kls.sqlite'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Resolves once the server has built the sidecar of `kls` and its names are in memory (or it logged nothing for 3 s);
 * rejects when the server has ended before.
 */
export async function searchReady(server: BenchServer, kls: string): Promise<void> {
  await waitFor('search index built', () => sidecarOf(kls) !== undefined || server.ended() !== null, 600_000);
  await namesSettledOrQuiet(server, 1, 3000);
  if (server.ended() !== null) throw new Error(`the server ended (${server.ended()}) before its search was ready`);
}

/** A cycle of unseen search paths on `tenant`, shared by every load so that no query repeats within it. */
export function unseenPaths(kls: string, tenant: string, wanted: number): { paths: string[]; next: () => string; at: () => number; moveTo: (i: number) => void } {
  const paths = unseenQueries(kls, wanted).map((q) => searchPath(tenant, q));
  let i = 0;
  return { paths, next: () => paths[i++ % paths.length]!, at: () => i, moveTo: (to) => (i = to) };
}

/** Both search loads, one after the other: closed loop at `connections` (capacity), then open loop at `rate`. */
export async function measureSearch(
  server: { url: string; pid: number },
  unseen: ReturnType<typeof unseenPaths>,
  options: { seconds: number; connections: number; rate: number },
): Promise<{ closed: ClosedLoopResult; open: OpenLoopResult }> {
  const closed = await closedLoop(server, unseen.next, { seconds: options.seconds, connections: options.connections });
  const open = await openLoop({ url: server.url, paths: unseen.paths, rate: options.rate, seconds: options.seconds, warmupSeconds: 1, startAt: unseen.at() });
  unseen.moveTo(open.nextPath);
  return { closed, open };
}
