// Idle RSS of a server with one 200,000-item tenant: KLS_DIR holds only kantonsspital's files (hard links into the
// search data). Twice: the server that builds the tenant's index (a first start, and every start after a swap),
// then a restart on the finished index; each after its names are in memory and a quiet period.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { namesSettled, sidecarOf, sleep, startBenchServer, waitFor } from '../bench-server.js';
import type { SearchData } from './search.js';
import type { ScaleSettings } from './settings.js';
import { num, printRow, rowOf, verdictOf, type Row } from './table.js';

/** Links (or copies, across file systems) `from` to `to`. */
function linkOrCopy(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch {
    fs.copyFileSync(from, to);
  }
}

/** Starts a server over `dataDir` and answers its RSS once the index is built, the names are in memory and it idled. */
async function idleRss(dataDir: string, klsDir: string, kls: string, settings: ScaleSettings): Promise<{ rss: number; peak: number; readyS: number }> {
  const started = performance.now();
  const server = await startBenchServer({ DATA_DIR: dataDir, KLS_DIR: klsDir });
  try {
    await waitFor('search index built', () => sidecarOf(kls) !== undefined, 600_000);
    await waitFor('search names in memory', () => namesSettled(server) >= 1, 300_000);
    const readyS = (performance.now() - started) / 1000;
    await sleep(settings.idleSeconds * 1000);
    return { rss: server.rssMb(), peak: server.peakMb(), readyS };
  } finally {
    await server.stop();
  }
}

export async function measureIdle(settings: ScaleSettings, data: SearchData): Promise<Row> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-scale-idle-'));
  try {
    const tenantDir = path.join(dataDir, 'kls', 'ost', 'kantonsspital');
    fs.mkdirSync(tenantDir, { recursive: true });
    for (const name of ['kls.sqlite', 'sis.sqlite']) {
      const from = path.join(path.dirname(data.kls), name);
      if (fs.existsSync(from)) linkOrCopy(from, path.join(tenantDir, name));
    }
    const kls = path.join(tenantDir, 'kls.sqlite');
    const built = await idleRss(dataDir, path.join(dataDir, 'kls'), kls, settings);
    console.log(`idle RSS, one tenant, index built by this server: ${num(built.rss)} MB (peak ${num(built.peak)} MB; index and names ready ${built.readyS.toFixed(1)} s after start, then ${settings.idleSeconds} s idle)`);
    const reused = await idleRss(dataDir, path.join(dataDir, 'kls'), kls, settings);
    console.log(`idle RSS, one tenant, restarted on the finished index: ${num(reused.rss)} MB (peak ${num(reused.peak)} MB; names ready ${reused.readyS.toFixed(1)} s after start)`);
    const row = rowOf(
      'idle',
      `${built.rss.toFixed(1)} MB with the index built by this server; ${reused.rss.toFixed(1)} MB restarted on the finished index`,
      verdictOf(built.rss <= 150 && reused.rss <= 150),
    );
    printRow(row);
    return row;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
