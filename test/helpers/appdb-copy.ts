import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { initializeAppDatabase } from '../../src/appdb/app-database.js';
import { runAppDbCommand } from '../../src/appdb/copy/command.js';
import { parseAppDbUrl } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { ManualClock } from './clock.js';
import { addNotebookCell, createNote } from './collaboration.js';
import { call } from './http.js';

/** What `ads-appdb` printed and its exit code. */
export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ads-appdb <args>` in this process (runAppDbCommand, the bin's whole body but the SIGINT handler). */
export async function appdbCommand(...args: string[]): Promise<CommandRun> {
  let stdout = '';
  let stderr = '';
  const code = await runAppDbCommand(args, { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } });
  return { code, stdout, stderr };
}

/** `ads-appdb` running as a process of its own. */
export interface SpawnedCommand {
  readonly child: ChildProcess;
  /** Resolves when the process has ended, with its output, exit code and signal. */
  readonly done: Promise<CommandRun & { signal: NodeJS.Signals | null }>;
  /** Resolves with the first line on stderr that matches, as soon as it arrives; rejects when the process ends first. */
  lineMatching(pattern: RegExp): Promise<string>;
}

/** The bin as a process of its own (`node --import tsx src/appdb/appdb-cli.ts`), for signals and a real interruption. */
export function spawnAppdbCommand(args: string[]): SpawnedCommand {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/appdb/appdb-cli.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiting: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const matchWaiting = (): void => {
    const lines = stderr.split('\n').slice(0, -1);
    for (const waiter of [...waiting]) {
      const line = lines.find((l) => waiter.pattern.test(l));
      if (line === undefined) continue;
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    matchWaiting();
  });
  const done = new Promise<CommandRun & { signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    child,
    done,
    lineMatching(pattern) {
      return new Promise((resolve, reject) => {
        waiting.push({ pattern, resolve });
        matchWaiting();
        void done.then((run) => reject(new Error(`ads-appdb ended before a line matched ${pattern}: ${run.stderr}`)));
      });
    },
  };
}

/** What a PostgreSQL app database holds: every copied table's rows in key order, as text. */
export async function postgresContent(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const parts = [];
    for (const table of ['app_meta', 'saved_views', 'notebooks', 'notes', 'cells']) parts.push(JSON.stringify((await client.query(`SELECT * FROM "${table}" ORDER BY 1`)).rows));
    return parts.join('\n');
  } finally {
    await client.end();
  }
}

/** The command's stderr as lines (progress lines included). */
export const stderrLines = (run: CommandRun): string[] => run.stderr.split('\n').filter((l) => l !== '');

/** Every list and read of views, notebooks and notes a UI makes, per tenant, as sent: status, the headers that matter, the body. */
export async function readEverything(base: string, tenants: readonly string[]): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  const read = async (path: string): Promise<any> => {
    const res = await call(base, path);
    const headers = ['etag', 'cache-control', 'content-type', 'vary'].map((h) => `${h}: ${res.headers.get(h)}`).join('\n');
    answers.set(path, `${res.status}\n${headers}\n\n${res.text}`);
    return res.body;
  };
  for (const tenant of tenants) {
    await read(`/api/views?tenant=${tenant}`);
    await read(`/api/views?tenant=${tenant}&include_etags=true`);
    await read(`/api/views?tenant=${tenant}&entity=cost_centres`);
    await read(`/${tenant}/api/notebook`);
    const notes = await read(`/${tenant}/api/notes`);
    for (const note of notes.notes as { note_id: string }[]) await read(`/${tenant}/api/notes/${note.note_id}`);
  }
  return answers;
}

const sequence = <T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: count }, (_, i) => make(i)));

/**
 * Fills an app database through the API of a running server: on every tenant saved views (some renamed, several
 * stamped at one instant, so that their order rests on the tie-breaker), notes with cells and changed titles; on
 * the first two tenants notebooks of 500 cells each (1,000 in all; some changed, some deleted, discussions with
 * replies), text in several scripts. `clock` stamps the writes.
 */
export async function fillThroughApi(base: string, tenants: readonly string[], clock: ManualClock): Promise<void> {
  clock.set(Date.parse('2026-05-04T08:00:00.000Z'));
  for (const [t, tenant] of tenants.entries()) {
    // five views stamped at one instant: listed by view_id
    const views = await sequence(5, (i) => call(base, '/api/views', { method: 'POST', json: { tenant, entity: i % 2 === 0 ? 'cost_centres' : 'materials', name: `Ansicht ${i} – Kostenstellen ✓`, params: { filters: { active: i % 2 === 0 }, sort: 'name', page: i } } }));
    for (const view of views) expect(view.status, view.text).to.equal(200);
    clock.advance(1500);
    const renamed = await call(base, '/api/views', { method: 'PUT', json: { tenant, view_id: views[t % 5]!.body.view.view_id, name: 'Vue renommée 日本語' } });
    expect(renamed.status, renamed.text).to.equal(200);
    for (const n of [0, 1, 2]) {
      clock.advance(1000);
      const note = await createNote(base, tenant, `Monatsabschluss ${n} — ${tenant}`, ['controlling', `q${n}`, 'ÄÖÜ']);
      for (let c = 0; c < 4; c += 1) {
        const added = await call(base, `/${tenant}/api/notes/${note.note_id}`, { method: 'POST', json: { cell: { type: 'narrative', text: { de: `Zelle ${c} 🧾`, en: `cell ${c}` } } } });
        expect(added.status, added.text).to.equal(200);
      }
      if (n === 1) expect((await call(base, `/${tenant}/api/notes/${note.note_id}`, { method: 'PUT', json: { title: `Geändert ${n}` } })).status).to.equal(200);
    }
  }
  for (const tenant of tenants.slice(0, 2)) {
    clock.advance(60_000);
    const cells = await sequence(500, (i) => addNotebookCell(base, tenant, cellOfKind(i)));
    for (const cell of cells.filter((c) => c.type === 'discussion').slice(0, 20)) {
      for (const r of [0, 1, 2]) {
        const reply = await call(base, `/${tenant}/api/notebook/cells/${cell.id}/discussion`, { method: 'POST', json: { author: 'Lukas Meier', text: { fr: `Réponse ${r} «ok»` } } });
        expect(reply.status, reply.text).to.equal(201);
      }
    }
    clock.advance(5);
    for (const cell of cells.filter((c) => c.type === 'action').slice(0, 10)) {
      expect((await call(base, `/${tenant}/api/notebook/cells/${cell.id}`, { method: 'PUT', json: { updates: { status: 'done' } } })).status).to.equal(200);
    }
    for (const cell of cells.slice(100, 103)) expect((await call(base, `/${tenant}/api/notebook/cells/${cell.id}`, { method: 'DELETE' })).status).to.equal(200);
    // three cells deleted: add three more for the 500
    for (let i = 0; i < 3; i += 1) await addNotebookCell(base, tenant, cellOfKind(i));
  }
}

function cellOfKind(i: number): Record<string, unknown> {
  switch (i % 5) {
    case 0:
      return { type: 'narrative', text: { en: `Cases ${i} unbilled`, de: `Fälle ${i} nicht verrechnet` } };
    case 1:
      return { type: 'discussion', title: `Thema ${i}` };
    case 2:
      return { type: 'action', text: `Invoice batch ${i}`, assignee: 'Anna Muster', due: '2026-06-30' };
    case 3:
      return { type: 'view', entity: 'cost_centres', params: { filters: { active: true }, limit: i } };
    default:
      return { type: 'reference', ref: { kind: 'probe', id: `probe_${i}` } };
  }
}

/**
 * A SQLite app database made by the server's migrations at `file`, with `cells` cells in notes of 500 (written
 * straight into the file in one transaction: the benches and the interruption tests need many rows fast).
 */
export async function bulkAppDatabase(file: string, cells: number): Promise<void> {
  const dataSource = await initializeAppDatabase(parseAppDbUrl('file', `sqlite:${file}`), createLogger('silent'));
  await dataSource.destroy();
  const db = new Database(file);
  try {
    const note = db.prepare('INSERT INTO notes (note_id, tenant_id, title, tags, author, created_at, updated_at, revision) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const cell = db.prepare('INSERT INTO cells (cell_id, owner_kind, owner_id, position, type, author, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    db.transaction(() => {
      let noteId = '';
      for (let i = 0; i < cells; i += 1) {
        const stamp = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
        if (i % 500 === 0) {
          noteId = randomUUID();
          note.run(noteId, 'ost.kantonsspital', `Bulk note ${i / 500}`, '["bulk"]', 'Anna Muster', stamp, stamp, 1);
        }
        const content = JSON.stringify({ text: { en: `Cell ${i}: October closed with ${i % 97} unbilled cases.`, de: `Zelle ${i}: Oktober mit ${i % 97} offenen Fällen.` } });
        cell.run(randomUUID(), 'note', noteId, i % 500, 'narrative', 'Anna Muster', content, stamp, stamp);
      }
    })();
  } finally {
    db.close();
  }
}
