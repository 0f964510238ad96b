// The standard loads a server must survive inside its memory limit: on a fresh copy of one tenant of 200,000 search
// items and 1,000,000 materials, the search index built and its names read, then unseen searches offered open loop
// at 1,000 queries/s while a client downloads the whole `materials` export, both at once, and a few seconds after
// them (the small tenants follow on a server of their own: bench/tenants.ts).
import fs from 'node:fs';
import path from 'node:path';
import { EXPORT_PATH } from './export.bench.js';
import { timeExport } from './export-timing.js';
import type { MemoryLimit, ServerRun } from './memory-limit.js';
import { openLoop } from './open-loop.js';
import { searchReady, type SearchTenant } from './search.js';
import { sleep, startServer, type BenchServer, type Build } from './server.js';

/** How long the server runs on after the loads before the run ends. */
const AFTERMATH_MS = 5000;

/** One run of `build` on a fresh copy of `pristine`: `paths` (unseen searches) at `rate` for `seconds`, and the export. */
export async function standardLoadsRun(build: Build, pristine: SearchTenant, load: { paths: readonly string[]; rate: number; seconds: number }, memoryLimit?: MemoryLimit): Promise<ServerRun> {
  const dir = `${pristine.dir}-limited`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(pristine.dir, dir, { recursive: true });
  let server: BenchServer | null = null;
  try {
    try {
      server = await startServer({ DATA_DIR: dir }, { build, healthyWithinMs: 600_000, memoryLimit });
      await searchReady(server, path.join(dir, path.relative(pristine.dir, pristine.kls)));
    } catch (err) {
      return { ended: (err as Error).message, failed: 0, serverPeakMb: Number.NaN };
    }
    const [searches, exported] = await Promise.all([
      // no warm-up: every request counts, the first ones too
      openLoop({ url: server.url, paths: load.paths, rate: load.rate, seconds: load.seconds }),
      timeExport(server.url + EXPORT_PATH).then(
        (timing) => !timing.truncated,
        () => false,
      ),
    ]);
    const failed = searches.requests - searches.ok + (exported ? 0 : 1);
    // what the loads leave behind (an export's last chunks, the garbage of both) is part of the run
    if (server.ended() === null) await sleep(AFTERMATH_MS);
    const ended = server.ended();
    return { ended: ended === null ? null : `${ended} ${failed > 0 ? 'during' : 'after'} the loads`, failed, serverPeakMb: ended === null ? server.peakMb() : Number.NaN };
  } finally {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
