// Many small tenants: a server on a fresh copy of `count` demo tenants serves each of them one search, one summary
// and one export of a small dimension (cost_centres), a few tenants at a time; then, once its background work (index
// builds, names loads) has settled and it runs as many threads as it did idle before the requests (the export's
// reader thread ends some time after its last job), its RSS and its open tenant files (/proc/<pid>/fd), which
// TENANT_HANDLES_MAX (passed through from the environment) bounds: what an operator sees once the work is over.
import fs from 'node:fs';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { mainArenaMb, namesSettledOrQuiet, sleep, startServer, threadsBackTo, threadsOf, type BenchServer, type Build } from './server.js';

/** Exports at once: EXPORTS_PER_CALLER's default (more would be refused with 429). */
const EXPORTS_AT_ONCE = 2;

/** What a small-tenants run left behind. */
export interface TenantsRun {
  rssMb: number;
  /** Open KLS files and open search indexes. */
  kls: number;
  indexes: number;
  failed: number;
}

/** Writes `count` demo tenants into `dir`; answers their composite ids. */
export function generateSmallTenants(dir: string, count: number): string[] {
  const started = performance.now();
  const demo = generateDemo({ out: dir, tenants: count });
  console.log(`small tenants: ${count} demo tenants (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return demo.tenants.map((t) => t.compositeId);
}

/** Open tenant files of `pid` under `klsDir`, by kind. */
function openTenantFiles(pid: number, klsDir: string): { kls: number; indexes: number } {
  let kls = 0;
  let indexes = 0;
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    if (!target.startsWith(klsDir + path.sep)) continue;
    const name = path.basename(target);
    if (name.startsWith('search-index.')) indexes += 1;
    else if (name === 'kls.sqlite') kls += 1;
  }
  return { kls, indexes };
}

async function get(url: string, retryOn429 = false): Promise<number> {
  for (let retries = 0; ; retries++) {
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status !== 429 || !retryOn429 || retries >= 100) return res.status;
    await sleep(50);
  }
}

/** One run of `build` on a fresh copy of `pristine` (a folder of `tenants`), `concurrency` tenants at a time. */
export async function smallTenantsRun(build: Build, pristine: string, tenants: readonly string[], concurrency: number): Promise<TenantsRun> {
  const dir = `${pristine}-run`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(pristine, dir, { recursive: true });
  let server: BenchServer | null = null;
  try {
    server = await startServer({ DATA_DIR: dir }, { build, healthyWithinMs: 600_000 });
    const pid = server.pid;
    const idleThreads = threadsOf(pid);
    let failed = 0;
    let exporting = 0;
    const waiting: (() => void)[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < tenants.length; i = next++) {
        const tenant = tenants[i]!;
        const base = server!.url;
        if ((await get(`${base}/api/jumpbar?mode=search&tenant=${tenant}&q=kosten`)) !== 200) failed += 1;
        if ((await get(`${base}/api/jumpbar?mode=summary&tenant=${tenant}`)) !== 200) failed += 1;
        while (exporting >= EXPORTS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
        exporting += 1;
        try {
          if ((await get(`${base}/${tenant}/dimensions/cost_centres/export`, true)) !== 200) failed += 1;
        } finally {
          exporting -= 1;
          waiting.shift()?.();
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const answered = performance.now();
    await namesSettledOrQuiet(server, tenants.length, 5000);
    const threadsBack = await threadsBackTo(pid, idleThreads);
    const files = openTenantFiles(pid, fs.realpathSync(path.join(dir, 'kls')));
    const rssMb = server.rssMb();
    const after = ((performance.now() - answered) / 1000).toFixed(0);
    const threads = threadsBack ? `threads back to ${idleThreads}` : `threads NOT back to ${idleThreads} (${threadsOf(pid)})`;
    console.log(`small tenants: RSS ${rssMb.toFixed(1)} MB (main arena ${mainArenaMb(pid).toFixed(1)}) read ${after} s after the last answer, ${threads}`);
    return { rssMb, ...files, failed };
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
