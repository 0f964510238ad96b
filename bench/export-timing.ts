// Timing a dimension export the way bench/export.bench.ts does: the download in a client process of its own (the
// bench's process holds the generated data, and its GC would slow the reads), against the sqlite3 command-line
// program running the same SELECT to /dev/null.
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';

const DOWNLOAD_CLIENT = `
const http = require('node:http');
const started = performance.now();
http.get(process.argv[1], (res) => {
  if (res.statusCode !== 200) { console.error('export answered ' + res.statusCode); process.exit(1); }
  let bytes = 0;
  res.on('data', (chunk) => (bytes += chunk.length));
  res.on('end', () => console.log(JSON.stringify({ ms: performance.now() - started, bytes, truncated: res.headers['x-export-truncated'] === 'true' })));
}).on('error', (err) => { console.error(err.message); process.exit(1); });
`;

/** What one download measured. */
export interface ExportTiming {
  ms: number;
  bytes: number;
  truncated: boolean;
}

/** Downloads the export in a child process, discarding the bytes; resolves with the time, byte count and truncation header. */
export function timeExport(url: string): Promise<ExportTiming> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', DOWNLOAD_CLIENT, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as ExportTiming) : reject(new Error(`download client exited with ${String(code)}`))));
  });
}

/** True when the sqlite3 command-line program runs. */
export const hasSqliteCli = (): boolean => spawnSync('sqlite3', ['-version'], { stdio: 'ignore' }).status === 0;

/** The SELECT the server's export of `table` runs (every column, table order), for the CLI. */
export function exportSelect(file: string, table: string, limit: number): string {
  const db = new Database(file, { readonly: true });
  const columns = db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(table) as string[];
  db.close();
  return `SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM "${table}" LIMIT ${limit}`;
}

/** Runs `sqlite3 -csv -header file select` to /dev/null; its wall time in ms. */
export function timeCli(file: string, select: string): number {
  const sink = fs.openSync('/dev/null', 'w');
  try {
    const started = performance.now();
    const result = spawnSync('sqlite3', ['-csv', '-header', file, select], { stdio: ['ignore', sink, 'inherit'] });
    if (result.status !== 0) throw new Error(`sqlite3 exited with ${String(result.status)}`);
    return performance.now() - started;
  } finally {
    fs.closeSync(sink);
  }
}
