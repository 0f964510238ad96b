// The baseline of bench/search.bench.ts: a naive `LIKE '%q%'` scan of search_items over HTTP, in its own process.
// Usage: node --import tsx bench/search-scan-server.ts <kls.sqlite>; prints the port it listens on.
// It answers the same nine arrays (10 per kind, exact, then prefix, then substring) as the jumpbar, without the
// contract layer (routing), so the comparison favours the scan.
import http from 'node:http';
import Database from 'better-sqlite3';
import { PER_KIND_LIMIT, RESULT_KEY, SEARCH_KINDS, isSearchKind } from '../src/search/search-kinds.js';
import { toApiSearchHit, type SearchHit } from '../src/search/search-hit.js';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: search-scan-server.ts <kls.sqlite>');
const db = new Database(file, { readonly: true });
const scan = db.prepare(
  `SELECT rowid AS id, kind, item_id, name_en, name_de, name_fr, description_en, description_de, description_fr, meta
   FROM search_items WHERE name_en LIKE @pattern OR name_de LIKE @pattern OR name_fr LIKE @pattern`,
);

type Row = Parameters<typeof toApiSearchHit>[0];

function rank(row: Row, q: string): number {
  const names = [row.name_en, row.name_de, row.name_fr].map((name) => (name ?? '').toLowerCase());
  if (names.includes(q)) return 0;
  return names.some((name) => name.startsWith(q)) ? 1 : 2;
}

function search(query: string): Record<string, SearchHit[]> {
  const q = query.trim().toLowerCase();
  const results: Record<string, SearchHit[]> = Object.fromEntries(SEARCH_KINDS.map((kind) => [RESULT_KEY[kind], []]));
  const rows = (scan.all({ pattern: `%${q.replace(/[%_\\]/g, '')}%` }) as Row[]).filter((row) => isSearchKind(row.kind));
  const ranked = rows.map((row) => ({ row, rank: rank(row, q), name: (row.name_en ?? '').toLowerCase() }));
  ranked.sort((a, b) => a.rank - b.rank || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.row.item_id < b.row.item_id ? -1 : 1));
  for (const { row } of ranked) {
    const list = results[RESULT_KEY[row.kind]]!;
    if (list.length < PER_KIND_LIMIT) list.push(toApiSearchHit(row));
  }
  return results;
}

const server = http.createServer((req, res) => {
  const q = new URL(req.url ?? '/', 'http://localhost').searchParams.get('q') ?? '';
  const body = JSON.stringify(search(q));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
