// Cell appends with 50 concurrent writers, one server process vs two processes sharing one app database.
// Notebook appends answer the whole notebook (its `cells` JSON string), so their cost grows with the notebook;
// note appends answer only `{cell_id}` and show the write path itself. Servers run from source through tsx
// (the same code as dist/ once loaded), so a stale build cannot skew the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { fmt, percentile } from './stats.js';

const root = path.resolve(import.meta.dirname, '..');
const WRITERS = 50;
const NOTEBOOK_APPENDS = 600;
const NOTE_APPENDS = 2000;

interface Server {
  url: string;
  child: ChildProcess;
}

async function spawnServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/main.ts')], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', GIT_WORKSPACES_DIR: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        try {
          const entry = JSON.parse(line) as { msg?: string; port?: number };
          if (entry.msg === 'listening' && entry.port !== undefined) resolve(entry.port);
        } catch {
          // not a log line
        }
      }
    });
    child.once('exit', () => reject(new Error('server exited before listening')));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** `total` POSTs from WRITERS concurrent loops, spread round-robin over `urls`; latencies in ms. */
async function burst(urls: string[], total: number, body: (seq: number) => unknown): Promise<{ seconds: number; latencies: number[] }> {
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const writer = async () => {
    for (let seq = next++; seq < total; seq = next++) {
      const t0 = performance.now();
      const res = await fetch(urls[seq % urls.length]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(seq)) });
      await res.arrayBuffer();
      if (res.status !== 200 && res.status !== 201) throw new Error(`append ${seq} answered ${res.status}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return { seconds: (performance.now() - started) / 1000, latencies };
}

async function scenario(processes: number): Promise<{ notebook: string; note: string; notebookRate: number; noteRate: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-collab-'));
  const servers: Server[] = [];
  try {
    generateDemo({ out: dataDir });
    const env = { DATA_DIR: dataDir, KLS_DIR: path.join(dataDir, 'kls'), APP_DB_URL: `sqlite:${path.join(dataDir, 'app.sqlite')}` };
    for (let i = 0; i < processes; i += 1) servers.push(await spawnServer(env));
    const noteRes = await fetch(`${servers[0]!.url}/kantonsspital/api/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"bench"}' });
    const noteId = ((await noteRes.json()) as { note: { note_id: string } }).note.note_id;
    const cell = (seq: number) => ({ cell: { type: 'narrative', text: { en: `Benchmark cell ${seq}: October closed with 12 unbilled cases.` } } });
    await burst(servers.map((s) => `${s.url}/hopital-cantonal/api/notebook/cells`), 100, cell); // warm-up (another notebook)

    const notebook = await burst(servers.map((s) => `${s.url}/kantonsspital/api/notebook/cells`), NOTEBOOK_APPENDS, cell);
    const note = await burst(servers.map((s) => `${s.url}/kantonsspital/api/notes/${noteId}`), NOTE_APPENDS, cell);
    const line = (r: { seconds: number; latencies: number[] }, n: number) =>
      `${fmt(n / r.seconds, 0)} appends/s, p50 ${fmt(percentile(r.latencies, 50))} ms, p95 ${fmt(percentile(r.latencies, 95))} ms`;
    return { notebook: line(notebook, NOTEBOOK_APPENDS), note: line(note, NOTE_APPENDS), notebookRate: NOTEBOOK_APPENDS / notebook.seconds, noteRate: NOTE_APPENDS / note.seconds };
  } finally {
    await Promise.all(servers.map(stopServer));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const one = await scenario(1);
  const two = await scenario(2);
  console.log(`notebook cell appends (${NOTEBOOK_APPENDS}, ${WRITERS} writers, answer = whole notebook): 1 process ${one.notebook}; 2 processes ${two.notebook}`);
  console.log(`note cell appends (${NOTE_APPENDS}, ${WRITERS} writers, answer = {cell_id}): 1 process ${one.note}; 2 processes ${two.note}`);
  console.log(`throughput ratio 2 processes / 1 process: notebook ${fmt(two.notebookRate / one.notebookRate, 2)}, note ${fmt(two.noteRate / one.noteRate, 2)}`);
}
