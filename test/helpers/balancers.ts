import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';
import { until } from './until.js';

// The real HAProxy and nginx (Debian's packages: `apt-get install haproxy nginx`, as .ci/run does) running the
// configurations docs/deployment.md shows, read from docs/deployment/ as they are. The harness changes addresses
// only: the `bind` (HAProxy) or `listen` (nginx) address becomes 127.0.0.1 and a free port, and the `server` lines'
// addresses, in order, become the instances' (the names, options and every other line stay). For the comparison
// without affinity the line that hashes (`balance hash …`, `hash … consistent;`) is swapped for round robin; the
// bench also adds a `hash-balance-factor` to HAProxy's; the frozen instance's test shortens the 60 s wait for an
// answer so that it does not last minutes.

const DOCS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'deployment');

/** The configuration files docs/deployment.md includes, by balancer. */
export const BALANCER_CONFIGS = { haproxy: path.join(DOCS, 'haproxy.cfg'), nginx: path.join(DOCS, 'nginx.conf') } as const;
export type BalancerKind = keyof typeof BALANCER_CONFIGS;

/** A running balancer in front of the instances. */
export interface Balancer {
  readonly kind: BalancerKind;
  readonly url: string;
  /** The configuration it runs, after the addresses were substituted. */
  readonly config: string;
  close(): Promise<void>;
}

export interface BalancerOptions {
  /** The instances' ports, in the order of the configuration's `server` lines. */
  ports: readonly number[];
  /** `hash` (the configuration as written) or `roundrobin` (its hashing line swapped for round robin). */
  routing?: 'hash' | 'roundrobin';
  /** HAProxy only: a `hash-balance-factor` added after `hash-type` (the bench's comparison; the file sets none). */
  balanceFactor?: number;
  /** Replaces the 60 s wait for an instance's answer (`timeout server`, `proxy_read_timeout`): a frozen instance's test. */
  serverTimeout?: string;
}

/** The path of Debian's binary, or a failure that says how to install it (a test needing it fails, never skips). */
export function balancerBinary(kind: BalancerKind): string {
  for (const dir of ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin']) {
    const file = path.join(dir, kind);
    if (fs.existsSync(file)) return file;
  }
  throw new Error(`${kind} is not installed: apt-get install -y --no-install-recommends ${kind} (.ci/run does)`);
}

/** Replaces the addresses in `config` (see the top of this file); fails when the file has other `server` lines than ports. */
export function substituteAddresses(kind: BalancerKind, config: string, listenPort: number, options: BalancerOptions): string {
  let servers = 0;
  const lines = config.split('\n').map((line) => {
    if (kind === 'haproxy' && /^\s*bind\s/.test(line)) return line.replace(/^(\s*bind\s+)\S+/, `$1127.0.0.1:${listenPort}`);
    if (kind === 'nginx' && /^\s*listen\s/.test(line)) return line.replace(/^(\s*listen\s+)[^;\s]+/, `$1127.0.0.1:${listenPort}`);
    const server = kind === 'haproxy' ? /^(\s*server\s+\S+\s+)\S+/ : /^(\s*server\s+)[^\s;{]+:\d+/;
    if (server.test(line)) {
      const port = options.ports[servers++];
      if (port === undefined) throw new Error(`${kind} configuration has more server lines than the ${options.ports.length} instances`);
      return line.replace(server, `$1127.0.0.1:${port}`);
    }
    if (options.serverTimeout !== undefined && /^\s*(timeout server|proxy_read_timeout)\s/.test(line)) return line.replace(/\s60s/, ` ${options.serverTimeout}`);
    if (options.balanceFactor !== undefined && kind === 'haproxy' && /^\s*hash-type\s/.test(line)) return `${line}\n  hash-balance-factor ${options.balanceFactor}`;
    if (options.routing === 'roundrobin' && kind === 'haproxy' && /^\s*balance\s/.test(line)) return line.replace(/balance\s.*$/, 'balance roundrobin');
    if (options.routing === 'roundrobin' && kind === 'nginx' && /^\s*hash\s/.test(line)) return line.replace(/hash\s.*$/, '# round robin: no hash');
    return line;
  });
  if (options.serverTimeout !== undefined && !lines.some((line) => line.includes(` ${options.serverTimeout}`))) throw new Error(`${kind} configuration sets no 60s server timeout`);
  if (servers !== options.ports.length) throw new Error(`${kind} configuration has ${servers} server lines for ${options.ports.length} instances`);
  return lines.join('\n');
}

/** Starts `kind` with the configuration docs/deployment/ holds; resolves once it answers on its port. */
export async function startBalancer(kind: BalancerKind, options: BalancerOptions): Promise<Balancer> {
  const binary = balancerBinary(kind);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ads-${kind}-`));
  const port = await freePort();
  const config = substituteAddresses(kind, fs.readFileSync(BALANCER_CONFIGS[kind], 'utf8'), port, options);
  let args: string[];
  if (kind === 'haproxy') {
    fs.writeFileSync(path.join(dir, 'haproxy.cfg'), config);
    args = ['-f', path.join(dir, 'haproxy.cfg'), '-db'];
  } else {
    fs.writeFileSync(path.join(dir, 'desk.conf'), config);
    fs.writeFileSync(path.join(dir, 'nginx.conf'), nginxMain(dir));
    args = ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')];
  }
  const check = spawnSync(binary, kind === 'haproxy' ? ['-c', ...args] : [...args, '-t'], { encoding: 'utf8' });
  if (check.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`${kind} refuses the configuration: ${check.stderr.trim()}`);
  }
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`${kind} exited: ${stderr.trim()}`);
        return fetch(`${url}/health/live`).then(
          (res) => res.status === 200,
          () => false,
        );
      },
      { deadline: 15_000, every: 50, what: `${kind} to answer` },
    );
  } catch (err) {
    await close();
    throw err;
  }
  return { kind, url, config, close };
}

/**
 * nginx's main configuration around the included http-context file (desk.conf): everything in the temporary
 * folder, one worker, in the foreground. As root the worker runs as root too (it writes the temporary folder).
 */
function nginxMain(dir: string): string {
  const user = os.userInfo().uid === 0 ? 'user root;\n' : '';
  return `${user}daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/desk.conf;
}
`;
}
