// Many small tenants: a data folder with 1,000 demo tenants (generateDemo writes ~30 ms and ~0.7 MB per tenant), a
// server started as `npm start` does, then each tenant serves one search, one summary and one export of a small
// dimension (cost_centres), a few tenants at a time; then the server's RSS and open files (/proc/<pid>/fd), once its
// background work (index builds, names loads) has settled. TENANT_HANDLES_MAX passes through from the environment
// (default 64); the bound holds when at most that many KLS files and that many search indexes are open.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../../src/demo/generate.js';
import { DEFAULT_TENANT_HANDLES_MAX } from '../../src/tenants/handle-pool.js';
import { namesSettledOrQuiet, sleep, startBenchServer, type BenchServer } from '../bench-server.js';
import { percentile } from '../stats.js';
import type { ScaleSettings } from './settings.js';
import { num, printRow, rowOf, type Row, type Verdict } from './table.js';

/** Exports at once: EXPORTS_PER_CALLER's default (more would be refused with 429). */
const EXPORTS_AT_ONCE = 2;

/** The server's open files, and how many of them are tenant files, of how many tenants. */
function openFiles(pid: number, klsDir: string): { total: number; byKind: Record<string, number>; tenants: number } {
  const byKind: Record<string, number> = {};
  const tenants = new Set<string>();
  let total = 0;
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    total += 1;
    let kind: string;
    if (target.startsWith(klsDir + path.sep)) {
      tenants.add(path.dirname(target));
      const name = path.basename(target);
      kind = /^search-index\./.test(name) ? 'search index' : name.replace(/-(wal|shm|journal)$/, '') === 'kls.sqlite' ? 'kls' : name.startsWith('sis.sqlite') ? 'sis' : 'other tenant file';
    } else if (target.startsWith('socket:')) kind = 'socket';
    else if (target.startsWith('pipe:')) kind = 'pipe';
    else if (target.startsWith('anon_inode:')) kind = target.slice('anon_inode:'.length).replace(/[[\]]/g, '');
    else kind = 'other file';
    byKind[kind] = (byKind[kind] ?? 0) + 1;
  }
  return { total, byKind, tenants: tenants.size };
}

const describeFiles = (f: ReturnType<typeof openFiles>): string =>
  `${f.total} open files (${Object.entries(f.byKind).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}; tenants holding files: ${f.tenants})`;

async function get(url: string, retryOn429 = false): Promise<{ status: number; ms: number; retries: number }> {
  const started = performance.now();
  for (let retries = 0; ; retries++) {
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status !== 429 || !retryOn429 || retries >= 100) return { status: res.status, ms: performance.now() - started, retries };
    await sleep(50);
  }
}

export async function measureTenants(settings: ScaleSettings): Promise<Row> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-scale-tenants-'));
  let server: BenchServer | null = null;
  try {
    const count = Math.max(3, Math.round(settings.smallTenants));
    let started = performance.now();
    const demo = generateDemo({ out: dataDir, tenants: count });
    console.log(`small tenants: ${count} demo tenants generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const limit = process.env['TENANT_HANDLES_MAX'];
    const setting = limit === undefined || limit.trim() === '' ? DEFAULT_TENANT_HANDLES_MAX : Number(limit);
    started = performance.now();
    server = await startBenchServer({ DATA_DIR: dataDir }, { healthyWithinMs: 600_000 });
    const klsDir = fs.realpathSync(path.join(dataDir, 'kls'));
    console.log(`server healthy after ${((performance.now() - started) / 1000).toFixed(1)} s: RSS ${num(server.rssMb())} MB, ${describeFiles(openFiles(server.pid, klsDir))}`);

    const latencies: Record<'search' | 'summary' | 'export', number[]> = { search: [], summary: [], export: [] };
    const statuses = new Map<string, number>();
    let exportRetries = 0;
    let exporting = 0;
    const waiting: (() => void)[] = [];
    const exportSlot = async (): Promise<() => void> => {
      while (exporting >= EXPORTS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
      exporting += 1;
      return () => {
        exporting -= 1;
        waiting.shift()?.();
      };
    };
    const record = (kind: keyof typeof latencies, r: { status: number; ms: number }): void => {
      latencies[kind].push(r.ms);
      statuses.set(`${kind} ${r.status}`, (statuses.get(`${kind} ${r.status}`) ?? 0) + 1);
    };
    let next = 0;
    started = performance.now();
    const worker = async (): Promise<void> => {
      for (let i = next++; i < demo.tenants.length; i = next++) {
        const tenant = demo.tenants[i]!.compositeId;
        const base = server!.url;
        record('search', await get(`${base}/api/jumpbar?mode=search&tenant=${tenant}&q=kosten`));
        record('summary', await get(`${base}/api/jumpbar?mode=summary&tenant=${tenant}`));
        const release = await exportSlot();
        try {
          const r = await get(`${base}/${tenant}/dimensions/cost_centres/export`, true);
          exportRetries += r.retries;
          record('export', r);
        } finally {
          release();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.round(settings.smallConcurrency)) }, worker));
    const loopS = (performance.now() - started) / 1000;
    const failed = [...statuses].filter(([key]) => !key.endsWith(' 200')).reduce((n, [, c]) => n + c, 0);
    console.log(
      `served ${count} tenants in ${loopS.toFixed(1)} s, ${settings.smallConcurrency} at once: ` +
        (['search', 'summary', 'export'] as const).map((k) => `${k} p50 ${num(percentile(latencies[k], 50))} / p99 ${num(percentile(latencies[k], 99))} ms`).join(', ') +
        `; statuses ${[...statuses].map(([k, n]) => `${k} x${n}`).join(', ')}${exportRetries > 0 ? `; ${exportRetries} export retries after 429` : ''}`,
    );
    console.log(`right after: RSS ${num(server.rssMb())} MB, ${describeFiles(openFiles(server.pid, klsDir))}`);
    const settled = await namesSettledOrQuiet(server, count, 5000);
    await sleep(2000);
    const rss = server.rssMb();
    const files = openFiles(server.pid, klsDir);
    console.log(
      `settled (${settled} names loads logged): RSS ${num(rss)} MB (peak ${num(server.peakMb())} MB), ${describeFiles(files)}; ` +
        `TENANT_HANDLES_MAX = ${setting}`,
    );
    const bounded = (files.byKind['kls'] ?? 0) <= setting && (files.byKind['search index'] ?? 0) <= setting;
    const verdict: Verdict = failed > 0 || rss > 300 || !bounded ? 'MISSED' : 'met';
    const row = rowOf(
      'tenants',
      `${num(rss)} MB RSS, ${files.total} open files (KLS ${files.byKind['kls'] ?? 0}, search indexes ${files.byKind['search index'] ?? 0}; TENANT_HANDLES_MAX = ${setting})` +
        (count !== 1000 ? `, ${count} tenants` : ''),
      verdict,
      failed > 0 ? `${failed} requests failed` : !bounded ? 'more files open than TENANT_HANDLES_MAX' : undefined,
    );
    printRow(row);
    return row;
  } finally {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
