// Many small tenants: a server on a fresh copy of `count` demo tenants serves each of them one search, one summary
// and one export of a small dimension (cost_centres), a few tenants at a time, then settles its background work
// (index builds, names loads), all inside the memory limit it was given, if any.
import fs from 'node:fs';
import { generateDemo } from '../src/demo/generate.js';
import type { MemoryLimit, ServerRun } from './memory-limit.js';
import { namesSettledOrQuiet, sleep, startServer, type BenchServer, type Build } from './server.js';

/** Exports at once: EXPORTS_PER_CALLER's default (more would be refused with 429). */
const EXPORTS_AT_ONCE = 2;

/** Writes `count` demo tenants into `dir`; answers their composite ids. */
export function generateSmallTenants(dir: string, count: number): string[] {
  const started = performance.now();
  const demo = generateDemo({ out: dir, tenants: count });
  console.log(`small tenants: ${count} demo tenants (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return demo.tenants.map((t) => t.compositeId);
}

/** The status of a GET, 0 when the server did not answer (it may have been killed). */
async function get(url: string, retryOn429 = false): Promise<number> {
  for (let retries = 0; ; retries++) {
    let status: number;
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      status = res.status;
    } catch {
      return 0;
    }
    if (status !== 429 || !retryOn429 || retries >= 100) return status;
    await sleep(50);
  }
}

/** One run of `build` on a fresh copy of `pristine` (a folder of `tenants`), `concurrency` tenants at a time. */
export async function smallTenantsRun(build: Build, pristine: string, tenants: readonly string[], concurrency: number, memoryLimit?: MemoryLimit): Promise<ServerRun> {
  const dir = `${pristine}-run`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(pristine, dir, { recursive: true });
  let server: BenchServer | null = null;
  try {
    try {
      server = await startServer({ DATA_DIR: dir }, { build, healthyWithinMs: 600_000, memoryLimit });
    } catch (err) {
      return { ended: (err as Error).message, failed: 0, serverPeakMb: Number.NaN };
    }
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
    // the background work the requests started belongs to the run
    if (server.ended() === null) await namesSettledOrQuiet(server, tenants.length, 5000);
    const ended = server.ended();
    return { ended: ended === null ? null : `${ended} ${failed > 0 ? 'during' : 'after'} the requests`, failed, serverPeakMb: ended === null ? server.peakMb() : Number.NaN };
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
