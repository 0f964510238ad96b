// `npm run bench -- appdb-copy`: how fast `ads-appdb copy` moves an app database of 100,000 cells (in 200 notes of
// 500), from SQLite into PostgreSQL (with fsync, as a production server runs) and back into a new SQLite file: the
// built command (`node dist/src/appdb/appdb-cli.js`, as the `ads-appdb` bin runs), a process per copy, in alternating
// rounds. It prints, per direction, the rows per second of the copy's transaction (inserts and the read-back
// verification: the command's own figure) and the wall time of the whole command (start, source snapshot, target
// migrations, copy, commit). There is no goal: the figures size the pause of a move (docs/deployment.md).
// APPDB_COPY_CELLS (100000) and APPDB_COPY_ROUNDS (3) change the run. The latest figures go to docs/benchmarks.md
// (section `appdb-copy`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bulkAppDatabase } from '../test/helpers/appdb-copy.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { writeBenchSection } from './report.js';
import { fmt, median } from './stats.js';

const CELLS = Number(process.env['APPDB_COPY_CELLS'] ?? 100_000);
const ROUNDS = Number(process.env['APPDB_COPY_ROUNDS'] ?? 3);
const CLI = path.join(import.meta.dirname, '..', 'dist', 'src', 'appdb', 'appdb-cli.js');

/** One run of the built command: its wall time, and the rows and rows per second it printed for its transaction. */
async function copyOnce(from: string, to: string): Promise<{ wallMs: number; rows: number; rowsPerSecond: number }> {
  const started = performance.now();
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'copy', '--from', from, '--to', to], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }));
  });
  const wallMs = performance.now() - started;
  const figures = /^([\d,]+) rows in [\d.]+ s \(([\d,]+) rows\/s\); every table's count and checksum agree$/m.exec(stdout);
  if (code !== 0 || figures === null) throw new Error(`ads-appdb copy exited ${code}: ${stderr.trim().split('\n').at(-1)}`);
  const number = (text: string): number => Number(text.replace(/,/g, ''));
  return { wallMs, rows: number(figures[1]!), rowsPerSecond: number(figures[2]!) };
}

/** `sqlite:<file>` with the file and its WAL removed. */
async function newFile(file: string): Promise<string> {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  return `sqlite:${file}`;
}

export async function run(): Promise<void> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: npm run build`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ads-bench-appdb-copy-'));
  const postgres = await startPostgres({ durable: true });
  try {
    const source = path.join(dir, 'desk.sqlite');
    await bulkAppDatabase(source, CELLS);
    // the first copy fills the PostgreSQL database every way back reads, and warms both
    const filled = await postgres.createDatabase('bench');
    await copyOnce(`sqlite:${source}`, filled);
    const back = path.join(dir, 'back.sqlite');
    // every copy goes into a new database or file, as a move does (a replaced table would carry its dead rows along)
    const directions = [
      { label: 'SQLite → PostgreSQL', from: async () => `sqlite:${source}`, to: () => postgres.createDatabase('bench') },
      { label: 'PostgreSQL → SQLite', from: async () => filled, to: async () => newFile(back) },
    ];
    const measured = new Map(directions.map((d) => [d.label, [] as { wallMs: number; rows: number; rowsPerSecond: number }[]]));
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const direction of round % 2 === 0 ? directions : [...directions].reverse()) {
        const result = await copyOnce(await direction.from(), await direction.to());
        measured.get(direction.label)!.push(result);
        console.log(`round ${round + 1} ${direction.label}: ${result.rows} rows, ${result.rowsPerSecond} rows/s in the transaction, ${fmt(result.wallMs / 1000, 2)} s in all`);
      }
    }
    const lines = [
      '## Moving the app database: `ads-appdb copy`',
      '',
      `An app database of ${CELLS.toLocaleString('en-US')} cells in ${Math.ceil(CELLS / 500)} notes, copied by the built \`ads-appdb copy\` into a new database or file each time, ${ROUNDS} alternating rounds per direction; PostgreSQL ${postgres.version} with fsync on, on the same machine. Rows per second of the copy's transaction (inserts and read-back verification); wall time of the whole command (start, source snapshot, target migrations, copy, commit).`,
      '',
      '| direction | rows | rows/s, median (min–max) | wall time, median (min–max) |',
      '|---|---|---|---|',
    ];
    for (const [label, results] of measured) {
      const rates = results.map((r) => r.rowsPerSecond);
      const walls = results.map((r) => r.wallMs / 1000);
      lines.push(
        `| ${label} | ${results[0]!.rows.toLocaleString('en-US')} | ${Math.round(median(rates)).toLocaleString('en-US')} (${Math.min(...rates).toLocaleString('en-US')}–${Math.max(...rates).toLocaleString('en-US')}) | ${fmt(median(walls), 2)} s (${fmt(Math.min(...walls), 2)}–${fmt(Math.max(...walls), 2)}) |`,
      );
    }
    console.log(lines.join('\n'));
    writeBenchSection('appdb-copy', lines.join('\n'));
  } finally {
    await postgres.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
