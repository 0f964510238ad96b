// Servers of several builds for bench/export.bench.ts: this checkout's `dist/`, and other checkouts' (baseline
// builds, EXPORT_BASELINE_DIR), each started the way its own package.json's `start` script starts it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/ports.js';
import { serverEnv, stopChild, untilHealthy, type BenchServer } from './bench-server.js';
import { procStatusKb } from './stats.js';

/** A build to run: a checkout whose `dist/` is built, and settings of its own. */
export interface Build {
  label: string;
  root: string;
  env?: Record<string, string>;
}

/**
 * This checkout; with EXPORT_BENCH_THREADS_OFF=1 this checkout again with READER_THREADS=off; and the baseline
 * builds EXPORT_BASELINE_DIR names (a path, or several separated by ':'), each labelled by its folder's name.
 */
export function buildsToCompare(): Build[] {
  const here = path.resolve(import.meta.dirname, '..');
  const builds: Build[] = [{ label: 'this build', root: here }];
  if (process.env['EXPORT_BENCH_THREADS_OFF'] === '1') builds.push({ label: 'this build, READER_THREADS=off', root: here, env: { READER_THREADS: 'off' } });
  for (const baseline of (process.env['EXPORT_BASELINE_DIR'] ?? '').split(':')) {
    if (baseline.trim() !== '') builds.push({ label: path.basename(baseline), root: path.resolve(baseline) });
  }
  for (const build of builds) startArgs(build); // a missing build fails before any data is generated
  return builds;
}

/** `[...nodeFlags, entry]` of the build's `start` script. */
function startArgs(build: Build): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(build.root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [, ...args] = pkg.scripts.start.trim().split(/\s+/);
  const entry = path.join(build.root, args.pop()!);
  if (!fs.existsSync(entry)) throw new Error(`${build.label}: ${entry} is missing; run \`npm run build\` in ${build.root}`);
  return [...args, entry];
}

/** Starts `build`'s server on `env` (LOG_LEVEL=error) and resolves once GET /health answers 200. */
export async function startBuild(build: Build, env: Record<string, string>): Promise<BenchServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, startArgs(build), {
    cwd: build.root,
    env: serverEnv({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env, ...build.env }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const pid = child.pid as number;
  const server: BenchServer = {
    child,
    url,
    pid,
    logged: () => [],
    rssMb: () => procStatusKb(pid, 'VmRSS') / 1024,
    peakMb: () => procStatusKb(pid, 'VmHWM') / 1024,
    stop: () => stopChild(child),
  };
  try {
    await untilHealthy(url, 120_000, child);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return server;
}

/** Resets the process's VmHWM to its current RSS; false when the kernel refuses. */
export function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** One line naming the machine, for the figures. */
export const machine = (): string =>
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, Node ${process.version}`;
