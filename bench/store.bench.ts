// KLS store mode against s3rver on loopback: initial sync of 20 tenants x 20 MB with STORE_CONCURRENCY 4 vs 1,
// a refresh with nothing changed (bytes transferred, wall time), and refresh request -> new generation in db-status.
// The server runs as a child process (its own event loop); s3rver runs in this process.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startObjectStore, type TestObjectStore } from '../test/helpers/s3rver.js';
import { fmt, median } from './stats.js';
import { freePort } from '../test/helpers/ports.js';

const root = path.resolve(import.meta.dirname, '..');
const TENANTS = 20;
const FILE_MB = 20;
const tenantKey = (i: number): string => `perf/bench/t${String(i).padStart(2, '0')}/kls.sqlite`;

/** A SQLite file of about FILE_MB MB: a meta table and one table of 1 MB blobs. */
function buildTenantFile(file: string, displayName: string): void {
  const db = new Database(file);
  db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB)");
  db.prepare("INSERT INTO meta VALUES ('display_name', ?)").run(displayName);
  const insert = db.prepare('INSERT INTO blobs (data) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < FILE_MB; i += 1) insert.run(randomBytes(1024 * 1024));
  })();
  db.close();
}


interface BenchServer {
  url: string;
  child: ChildProcess;
  /** Resolves with the duration the server logged for its first sync. */
  firstSyncMs: Promise<number>;
}

async function startServer(store: TestObjectStore, dataDir: string, concurrency: number): Promise<BenchServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, ...store.env({ S3_PREFIX: 'perf', STORE_CONCURRENCY: String(concurrency) }), PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const firstSyncMs = new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n')) {
        if (line.includes('first sync with the object store finished')) resolve((JSON.parse(line) as { ms: number }).ms);
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    child.once('exit', () => reject(new Error('server exited before its first sync')));
  });
  return { url: `http://127.0.0.1:${port}`, child, firstSyncMs };
}

async function stopServer(server: BenchServer): Promise<void> {
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
}

async function json(url: string, init?: RequestInit): Promise<any> {
  return (await fetch(url, init)).json();
}

async function initialSync(store: TestObjectStore, concurrency: number): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-store-'));
  const server = await startServer(store, dataDir, concurrency);
  try {
    const ms = await server.firstSyncMs;
    const status = await json(`${server.url}/api/store-status`);
    if (status.ready !== true || status.tenants.length !== TENANTS) throw new Error(`sync incomplete: ${JSON.stringify(status).slice(0, 300)}`);
    return ms;
  } finally {
    await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-files-'));
  const store = await startObjectStore('kls-bench');
  try {
    const file = path.join(work, 'kls.sqlite');
    buildTenantFile(file, 'Bench tenant');
    for (let i = 0; i < TENANTS; i += 1) await store.put(tenantKey(i), file);
    console.log(`${TENANTS} tenants x ${fmt(fs.statSync(file).size / 1048576)} MB on s3rver (loopback)`);

    for (const [label, msPerChunk] of [['loopback, full speed', null], ['paced to ~32 MB/s per connection', 2]] as const) {
      store.slowDownloads(msPerChunk);
      const four = await initialSync(store, 4);
      const one = await initialSync(store, 1);
      console.log(`initial sync (${label}): STORE_CONCURRENCY=4 ${fmt(four, 0)} ms, =1 ${fmt(one, 0)} ms; ratio 1/4 = ${fmt(one / four, 2)}x`);
    }
    store.slowDownloads(null);

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-store-'));
    const server = await startServer(store, dataDir, 4);
    try {
      await server.firstSyncMs;
      const unchanged: number[] = [];
      store.resetTraffic();
      for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        const res = await json(`${server.url}/api/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"wait":true}' });
        unchanged.push(performance.now() - started);
        if (res.status !== 'completed') throw new Error(JSON.stringify(res));
      }
      console.log(
        `refresh with nothing changed (scope all, wait=true, ${TENANTS} tenants): ${store.traffic.bytes} bytes in ${store.traffic.objectGets} object GETs; ` +
          `median ${fmt(median(unchanged))} ms over ${unchanged.length} runs`,
      );

      const visible: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const variant = path.join(work, `variant-${i}.sqlite`);
        fs.copyFileSync(file, variant);
        const db = new Database(variant);
        db.prepare("UPDATE meta SET value = ? WHERE key = 'display_name'").run(`Bench tenant v${i + 2}`);
        db.close();
        await store.put(tenantKey(0), variant);
        fs.rmSync(variant);
        const before = (await json(`${server.url}/api/db-status/bench.t00`)).generation as number;
        const started = performance.now();
        await fetch(`${server.url}/api/refresh?scope=tenant&tenant=bench.t00`);
        while ((await json(`${server.url}/api/db-status/bench.t00`)).generation === before) {
          if (performance.now() - started > 60_000) throw new Error('no new generation within 60 s');
        }
        visible.push(performance.now() - started);
      }
      console.log(`refresh request -> new generation in db-status (one ${FILE_MB} MB tenant changed): median ${fmt(median(visible))} ms over ${visible.length} runs`);
    } finally {
      await stopServer(server);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    await store.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
