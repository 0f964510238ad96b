// A memory limit as a container has one: a memory cgroup of its own for a server, made beneath the bench's own
// cgroup (so that nothing outside the bench's share of the machine changes) on cgroup v1 (`memory.limit_in_bytes`)
// or v2 (`memory.max`), swap included in the limit, as `docker run --memory` with `--memory-swap` equal does. The
// kernel kills a process of the cgroup when the memory it cannot reclaim would go over the limit; the cgroup counts
// those kills (v1 `memory.oom_control`, v2 `memory.events`) and its peak (v1 `memory.max_usage_in_bytes`, v2
// `memory.peak`), which includes the page cache the server's reads brought in and the kernel reclaims before it kills.
import fs from 'node:fs';
import path from 'node:path';

/** A memory cgroup made for one server; the server joins it by writing its pid into `procsFile` before it starts. */
export interface MemoryLimit {
  limitMb: number;
  /** Where it is, for the report. */
  dir: string;
  procsFile: string;
  /** The cgroup's peak memory so far, MB (page cache included). */
  peakMb(): number;
  /** Processes of the cgroup the kernel's OOM killer has killed so far. */
  oomKills(): number;
  /** Removes the cgroup once its processes have exited (the kernel may take a moment to let it go). */
  remove(): Promise<void>;
}

/** Where the bench can make memory cgroups, or why it cannot. */
export type CgroupSupport = { parent: string; version: 1 | 2 } | { reason: string };

const MB = 1024 * 1024;
const PREFIX = 'ads-bench-';

const read = (file: string): string => fs.readFileSync(file, 'utf8');
const counter = (text: string, name: string): number => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

/** The mount point and root of the cgroup hierarchy that has the memory controller, if any. */
function memoryHierarchy(): { version: 1 | 2; mount: string; root: string } | null {
  const mounts = read('/proc/self/mountinfo')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields.length > 9);
  for (const fields of mounts) {
    const separator = fields.indexOf('-');
    const [type, , options] = fields.slice(separator + 1);
    if (type === 'cgroup' && options?.split(',').includes('memory')) return { version: 1, mount: fields[4]!, root: fields[3]! };
  }
  for (const fields of mounts) {
    const separator = fields.indexOf('-');
    if (fields[separator + 1] !== 'cgroup2') continue;
    if (read(path.join(fields[4]!, 'cgroup.controllers')).split(/\s+/).includes('memory')) return { version: 2, mount: fields[4]!, root: fields[3]! };
  }
  return null;
}

/** The bench process's own cgroup in that hierarchy, as a directory. */
function ownCgroup(version: 1 | 2, mount: string, root: string): string {
  const lines = read('/proc/self/cgroup').split('\n');
  const line = version === 1 ? lines.find((l) => l.split(':')[1]?.split(',').includes('memory')) : lines.find((l) => l.startsWith('0::'));
  const own = line?.slice(line.indexOf(':', line.indexOf(':') + 1) + 1) ?? '/';
  const relative = root !== '/' && own.startsWith(root) ? own.slice(root.length) : own;
  return path.join(mount, relative);
}

/**
 * Where memory cgroups can be made: REGRESS_CGROUP_PARENT (a cgroup directory the bench may make children in), else
 * the bench's own cgroup; on v2 that needs the memory controller enabled for its children, which the kernel refuses
 * in a cgroup that holds processes itself (other than the root).
 */
export function cgroupSupport(): CgroupSupport {
  const hierarchy = memoryHierarchy();
  if (hierarchy === null) return { reason: 'no cgroup hierarchy with the memory controller is mounted' };
  const parent = process.env['REGRESS_CGROUP_PARENT'] ?? ownCgroup(hierarchy.version, hierarchy.mount, hierarchy.root);
  try {
    fs.accessSync(parent, fs.constants.W_OK);
  } catch {
    return { reason: `${parent} is not writable (the bench makes memory cgroups as root, or in a cgroup delegated to it: REGRESS_CGROUP_PARENT)` };
  }
  if (hierarchy.version === 2 && !read(path.join(parent, 'cgroup.subtree_control')).split(/\s+/).includes('memory')) {
    try {
      fs.writeFileSync(path.join(parent, 'cgroup.subtree_control'), '+memory');
    } catch (err) {
      return { reason: `cannot enable the memory controller below ${parent} (${(err as Error).message}): name an empty cgroup in REGRESS_CGROUP_PARENT` };
    }
  }
  for (const stale of fs.readdirSync(parent).filter((name) => name.startsWith(PREFIX))) {
    try {
      fs.rmdirSync(path.join(parent, stale));
    } catch {
      // still in use by another run
    }
  }
  return { parent, version: hierarchy.version };
}

let made = 0;

/** Makes a memory cgroup of `limitMb` below `support.parent`. */
export function makeMemoryLimit(support: { parent: string; version: 1 | 2 }, limitMb: number): MemoryLimit {
  const dir = path.join(support.parent, `${PREFIX}${process.pid}-${++made}`);
  fs.mkdirSync(dir);
  const bytes = String(limitMb * MB);
  const file = (name: string): string => path.join(dir, name);
  if (support.version === 1) {
    fs.writeFileSync(file('memory.limit_in_bytes'), bytes);
    // swap counted in the limit (the file is there when the kernel accounts swap)
    if (fs.existsSync(file('memory.memsw.limit_in_bytes'))) fs.writeFileSync(file('memory.memsw.limit_in_bytes'), bytes);
  } else {
    fs.writeFileSync(file('memory.max'), bytes);
    if (fs.existsSync(file('memory.swap.max'))) fs.writeFileSync(file('memory.swap.max'), '0');
  }
  return {
    limitMb,
    dir,
    procsFile: file('cgroup.procs'),
    // memory.peak came with Linux 5.19
    peakMb: () => (support.version === 1 || fs.existsSync(file('memory.peak')) ? Number(read(file(support.version === 1 ? 'memory.max_usage_in_bytes' : 'memory.peak'))) / MB : Number.NaN),
    oomKills: () => counter(read(file(support.version === 1 ? 'memory.oom_control' : 'memory.events')), 'oom_kill'),
    remove: async () => {
      for (const deadline = Date.now() + 10_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
        try {
          return fs.rmdirSync(dir);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EBUSY' || Date.now() > deadline) throw err;
        }
      }
    },
  };
}

/** `[command, args]` that runs `command args` inside `limit`: the process joins the cgroup before it execs. */
export const insideLimit = (limit: MemoryLimit, command: string, args: readonly string[]): [string, string[]] => [
  '/bin/sh',
  ['-c', 'echo $$ > "$0" && exec "$@"', limit.procsFile, command, ...args],
];

/** What a server did in one run: its failed requests, its peak RSS, and how it ended if it ended before the bench stopped it. */
export interface ServerRun {
  /** How and when (`SIGKILL after the loads`, `the server ended (SIGKILL) before it was healthy`), or null. */
  ended: string | null;
  failed: number;
  /** VmHWM just before the bench stopped it; NaN when it had ended. */
  serverPeakMb: number;
}

/** A run inside a memory limit: whether the kernel killed the server, and the cgroup's peak (NaN without a limit). */
export interface LimitedRun extends ServerRun {
  killed: boolean;
  cgroupPeakMb: number;
}

/**
 * Runs `run` with a fresh memory cgroup of `limitMb` where `support` allows one (else without a limit): killed when
 * the cgroup counted an OOM kill or the server ended by SIGKILL, which is how the kernel ends a process it kills.
 */
export async function insideMemoryLimit(support: CgroupSupport, limitMb: number, run: (limit?: MemoryLimit) => Promise<ServerRun>): Promise<LimitedRun> {
  const limit = 'parent' in support ? makeMemoryLimit(support, limitMb) : undefined;
  try {
    const result = await run(limit);
    const killed = (limit?.oomKills() ?? 0) > 0 || (result.ended ?? '').includes('SIGKILL');
    return { ...result, killed, cgroupPeakMb: limit?.peakMb() ?? Number.NaN };
  } finally {
    await limit?.remove();
  }
}

/** One line for the terminal and the report: `survived` or `KILLED`, the peaks, the failed requests. */
export function describeRun(run: LimitedRun): string {
  const how = run.killed ? `KILLED (${run.ended ?? 'a process of its cgroup'})` : run.ended !== null ? `ENDED (${run.ended})` : 'survived';
  const peak = Number.isNaN(run.cgroupPeakMb) ? '' : `, cgroup peak ${run.cgroupPeakMb.toFixed(1)} MB`;
  const rss = Number.isNaN(run.serverPeakMb) ? '' : `, server peak RSS ${run.serverPeakMb.toFixed(1)} MB`;
  return `${how}${peak}${rss}, ${run.failed} failed`;
}

/** Where the limits are made, or, loudly, why there are none and what that means for the goal. */
export const describeSupport = (support: CgroupSupport, limitMb: number): string =>
  'parent' in support
    ? `Memory limits: a fresh memory cgroup (v${support.version}) of ${limitMb} MB, swap included, for each run's server, below ${support.parent}.`
    : `**NO MEMORY LIMIT**: ${support.reason}. The memory runs went without a limit: whether a server survives ${limitMb} MB is NOT judged.`;
